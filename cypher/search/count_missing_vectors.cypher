// params: scope
// How many searchable texts of one scope still wait for a vector (an embed run's progress).
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
RETURN count(n) AS missing
