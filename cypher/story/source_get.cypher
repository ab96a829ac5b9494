// params: scope, id
MATCH (s:Source {scope: $scope, id: $id})
OPTIONAL MATCH (s)-[:HAS_VERSION]->(v:SourceVersion)
RETURN s {.*} AS s, collect(v {.*}) AS versions
