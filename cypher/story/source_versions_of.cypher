// params: scope, ids
MATCH (v:SourceVersion)
WHERE v.scope = $scope AND v.source_id IN $ids
RETURN v.source_id AS source_id, v.version AS version
