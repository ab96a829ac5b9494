// params: scope, limit
// Hybrid search: the searchable texts of one scope that have no vector yet
// (the same five labels as the full-text index; a node with no text has nothing to embed), read through each label's scope index (the IS NOT NULL terms let it use the composite one).
CALL {
  MATCH (n:EntityVersion) WHERE n.scope = $scope AND n.recorded_at IS NOT NULL AND n.embedding IS NULL
  RETURN n
  UNION ALL
  MATCH (n:EventVersion) WHERE n.scope = $scope AND n.recorded_at IS NOT NULL AND n.embedding IS NULL
  RETURN n
  UNION ALL
  MATCH (n:RelationVersion) WHERE n.scope = $scope AND n.recorded_at IS NOT NULL AND n.embedding IS NULL
  RETURN n
  UNION ALL
  MATCH (n:Summary) WHERE n.scope = $scope AND n.recorded_at IS NOT NULL AND n.embedding IS NULL
  RETURN n
  UNION ALL
  MATCH (n:Passage)
  WHERE n.scope = $scope AND n.source_id IS NOT NULL AND n.version IS NOT NULL AND n.embedding IS NULL
  RETURN n
}
WITH n WHERE trim(coalesce(n.name, '') + coalesce(n.title, '') + coalesce(n.description, '')
                  + coalesce(n.reason, '') + coalesce(n.text, '')) <> ''
WITH n LIMIT $limit
RETURN elementId(n) AS id, n {.name, .title, .description, .reason, .text} AS fields
