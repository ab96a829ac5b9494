// params: scope, as_of, after_type, after_id, confirmation, include_removed, limit
// One page of the relations believed at $as_of, ordered by (type, id) after the keyset cursor
// ('' and '' for the first page), in the order of the (scope, type, id) index, cut at $limit.
// As in storyGraph, both ends are entities believed at $as_of, and removed relations show
// only with $include_removed.
MATCH (v:RelationVersion)
USING INDEX v:RelationVersion(scope, type, id)
WHERE v.scope = $scope AND v.type >= $after_type AND v.id IS NOT NULL
  AND CASE WHEN v.type = $after_type THEN v.id > $after_id ELSE true END
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($confirmation IS NULL OR v.confirmation = $confirmation)
  AND ($include_removed OR NOT coalesce(v.removed, false))
  AND EXISTS {
    MATCH (e:EntityVersion {id: v.from_id})
    WHERE e.scope = $scope AND e.recorded_at <= $as_of AND e.retracted_at > $as_of }
  AND EXISTS {
    MATCH (e:EntityVersion {id: v.to_id})
    WHERE e.scope = $scope AND e.recorded_at <= $as_of AND e.retracted_at > $as_of }
// ORDER BY names the index's leading property too: the planner then reads in index order
// (Limit, no Top over the whole scope).
WITH v ORDER BY v.scope, v.type, v.id LIMIT $limit
RETURN v {.*,
          recorded_at: v.recorded_at.epochSeconds * 1000000 + v.recorded_at.microsecond,
          retracted_at: v.retracted_at.epochSeconds * 1000000 + v.retracted_at.microsecond,
          valid_from: v.valid_from.epochSeconds * 1000000 + v.valid_from.microsecond,
          valid_to: v.valid_to.epochSeconds * 1000000 + v.valid_to.microsecond} AS v
