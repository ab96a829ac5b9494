// params: scope, since, until, after_at, after_id, limit, bookkeeping
// One page of what changed in a scope's story graph between two record times (the rows of
// cypher/fragments/diff_changes.cypher), ordered by (the object's last change in the window,
// id) after the keyset cursor and cut at $limit: the cost grows with the changes in the
// window, not with the scope's history. engine/story/diff.py classifies each row and lists
// its fields.
// include: diff_changes
WITH kind, id, at, before, after
ORDER BY at, id
LIMIT $limit
RETURN kind, id, at.epochMillis * 1000 + at.microsecond % 1000 AS at, before, after
