// params: scope, id
// The current version of a story-graph source, as the checker reads it.
MATCH (s:Source {scope: $scope, id: $id})
OPTIONAL MATCH (v:SourceVersion {scope: $scope, source_id: $id, version: s.current_version})
RETURN s {.*} AS s, v {.*} AS v
