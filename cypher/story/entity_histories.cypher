// params: scope, ids, as_of
// Every version of the given entities recorded by $as_of, in one statement for a whole page
// (Entity.history through a per-request DataLoader; no statement per entity).
MATCH (v:EntityVersion)
USING INDEX v:EntityVersion(id)
WHERE v.id IN $ids AND v.scope = $scope AND v.recorded_at <= $as_of
RETURN v {.*,
          recorded_at: v.recorded_at.epochSeconds * 1000000 + v.recorded_at.microsecond,
          retracted_at: v.retracted_at.epochSeconds * 1000000 + v.retracted_at.microsecond,
          valid_from: v.valid_from.epochSeconds * 1000000 + v.valid_from.microsecond,
          valid_to: v.valid_to.epochSeconds * 1000000 + v.valid_to.microsecond} AS v
ORDER BY v.id, v.seq
