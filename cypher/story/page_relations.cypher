// params: scope, as_of, after_type, after_id, confirmation, include_removed, limit
// One page of the relations believed at $as_of, ordered by (type, id) after the keyset cursor
// ('' and '' for the first page), in the order of the (scope, type, id) index, cut at $limit.
// As in storyGraph, both ends are entities believed at $as_of, and removed relations show
// only with $include_removed. Each end is sought by id in the (id, retracted_at) index: the
// planner, left alone, sometimes scanned a whole scope's entity versions per relation.
MATCH (v:RelationVersion)
USING INDEX SEEK v:RelationVersion(scope, type, id)
WHERE v.scope = $scope AND v.type >= $after_type AND v.id IS NOT NULL
  AND CASE WHEN v.type = $after_type THEN v.id > $after_id ELSE true END
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($confirmation IS NULL OR v.confirmation = $confirmation)
  AND ($include_removed OR NOT coalesce(v.removed, false))
  AND EXISTS {
    MATCH (e:EntityVersion)
    USING INDEX SEEK e:EntityVersion(id, retracted_at)
    WHERE e.id = v.from_id AND e.retracted_at > $as_of
      AND e.scope = $scope AND e.recorded_at <= $as_of }
  AND EXISTS {
    MATCH (e:EntityVersion)
    USING INDEX SEEK e:EntityVersion(id, retracted_at)
    WHERE e.id = v.to_id AND e.retracted_at > $as_of
      AND e.scope = $scope AND e.recorded_at <= $as_of }
// ORDER BY names the index's leading property too: the planner then reads in index order
// (Limit, no Top over the whole scope).
WITH v ORDER BY v.scope, v.type, v.id LIMIT $limit
// One record, the page in that order (collect keeps it): the Python driver's cost is per
// record (~50 µs each), not per row of a list.
RETURN collect(v {.*,
                  recorded_at: v.recorded_at.epochMillis * 1000 + v.recorded_at.microsecond % 1000,
                  retracted_at: v.retracted_at.epochMillis * 1000 + v.retracted_at.microsecond % 1000,
                  valid_from: v.valid_from.epochMillis * 1000 + v.valid_from.microsecond % 1000,
                  valid_to: v.valid_to.epochMillis * 1000 + v.valid_to.microsecond % 1000}) AS page
