// params: scope, as_of, after_name, after_id, kind, status, name_contains, limit
// One page of the entities believed at $as_of, ordered by (name, id) after the keyset cursor
// ($after_name, $after_id; '' and '' for the first page), read in the order of the
// (scope, name, id) index and cut at $limit: the cost grows with the page, not the scope.
// Instants cross the driver as epoch microseconds (graph.temporal.from_epoch_us).
MATCH (v:EntityVersion)
USING INDEX SEEK v:EntityVersion(scope, name, id)
WHERE v.scope = $scope AND v.name >= $after_name AND v.id IS NOT NULL
  AND CASE WHEN v.name = $after_name THEN v.id > $after_id ELSE true END
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($kind IS NULL OR v.kind = $kind)
  AND ($status IS NULL OR v.status = $status)
  AND ($name_contains IS NULL OR toLower(v.name) CONTAINS $name_contains)
// ORDER BY names the index's leading property too: the planner then reads in index order
// (Limit, no Top over the whole scope).
WITH v ORDER BY v.scope, v.name, v.id LIMIT $limit
// One record, the page in that order (collect keeps it): the Python driver's cost is per
// record (~50 µs each), not per row of a list.
RETURN collect(v {.*,
                  recorded_at: v.recorded_at.epochMillis * 1000 + v.recorded_at.microsecond % 1000,
                  retracted_at: v.retracted_at.epochMillis * 1000 + v.retracted_at.microsecond % 1000,
                  valid_from: v.valid_from.epochMillis * 1000 + v.valid_from.microsecond % 1000,
                  valid_to: v.valid_to.epochMillis * 1000 + v.valid_to.microsecond % 1000}) AS page
