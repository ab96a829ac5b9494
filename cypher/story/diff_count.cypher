// params: scope, since, until, after_at, after_id, bookkeeping
// How many objects changed between two record times (the diff's totalCount, read only when
// asked for; $after_at and $after_id are the start of the list).
// include: diff_changes
RETURN count(*) AS n
