// params: scope, ids, forever
// Current relations whose two ends are among the given entities (publish context).
MATCH (v:RelationVersion)
WHERE v.from_id IN $ids AND v.scope = $scope AND v.retracted_at = $forever AND v.to_id IN $ids
RETURN v {.*} AS v
