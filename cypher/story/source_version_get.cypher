// params: scope, source_id, version
MATCH (v:SourceVersion {scope: $scope, source_id: $source_id, version: $version})
RETURN v {.*} AS v
