// params: scope, keys
// Exact source versions ({source_id, version} pairs) of this scope; a missing one is absent.
UNWIND $keys AS k
MATCH (v:SourceVersion {scope: $scope, source_id: k.source_id, version: k.version})
RETURN v {.*} AS v
