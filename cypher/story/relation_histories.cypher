// params: scope, ids, as_of
// Every version of the given relations recorded by $as_of, in one statement for a whole page.
MATCH (v:RelationVersion)
USING INDEX v:RelationVersion(id)
WHERE v.id IN $ids AND v.scope = $scope AND v.recorded_at <= $as_of
RETURN v {.*,
          recorded_at: v.recorded_at.epochSeconds * 1000000 + v.recorded_at.microsecond,
          retracted_at: v.retracted_at.epochSeconds * 1000000 + v.retracted_at.microsecond,
          valid_from: v.valid_from.epochSeconds * 1000000 + v.valid_from.microsecond,
          valid_to: v.valid_to.epochSeconds * 1000000 + v.valid_to.microsecond} AS v
ORDER BY v.id, v.seq
