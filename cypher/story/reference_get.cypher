// params: scope, id
MATCH (r:Reference {id: $id})
WHERE r.scope = $scope
OPTIONAL MATCH (v:SourceVersion {scope: r.scope, source_id: r.source_id, version: r.source_version})
RETURN r {.*} AS r, v {.*} AS v
