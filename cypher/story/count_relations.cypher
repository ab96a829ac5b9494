// params: scope, as_of, confirmation, include_removed
// How many relations page_relations pages through (totalCount, read only when asked for);
// each end is sought by id in the (id, retracted_at) index, as there.
MATCH (v:RelationVersion)
WHERE v.scope = $scope AND v.retracted_at > $as_of AND v.recorded_at <= $as_of
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
RETURN count(v) AS n
