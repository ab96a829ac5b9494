// params: scope, as_of, ids, confirmation, include_removed
// How many relations page_relations_among pages through.
UNWIND $ids AS id
MATCH (v:RelationVersion)
USING INDEX SEEK v:RelationVersion(from_id)
WHERE v.from_id = id AND v.scope = $scope AND v.to_id IN $ids
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($confirmation IS NULL OR v.confirmation = $confirmation)
  AND ($include_removed OR NOT coalesce(v.removed, false))
RETURN count(v) AS n
