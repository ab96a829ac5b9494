// params: scope, source_id, version
// withdrawSource (docs/rules/story-graph.md): the version's text leaves Neo4j, and so do its passages.
MATCH (p:Passage {scope: $scope, source_id: $source_id, version: $version})
DETACH DELETE p
RETURN count(*) AS removed
