// params: scope, ids, as_of
// Every version of the given relations recorded by $as_of, in one statement for a whole page.
MATCH (v:RelationVersion)
USING INDEX SEEK v:RelationVersion(id)
WHERE v.id IN $ids AND v.scope = $scope AND v.recorded_at <= $as_of
RETURN v {.*,
          recorded_at: v.recorded_at.epochMillis * 1000 + v.recorded_at.microsecond % 1000,
          retracted_at: v.retracted_at.epochMillis * 1000 + v.retracted_at.microsecond % 1000,
          valid_from: v.valid_from.epochMillis * 1000 + v.valid_from.microsecond % 1000,
          valid_to: v.valid_to.epochMillis * 1000 + v.valid_to.microsecond % 1000} AS v
ORDER BY v.id, v.seq
