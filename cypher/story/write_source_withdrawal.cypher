// params: scope, source_id, version, withdrawn_at, withdrawn_by, withdrawal_reason
// withdrawSource (docs/rules/story-graph.md): the app deleted or redacted this version. Its text leaves
// Neo4j (the property is removed, not hidden); the version node, the references locating it
// and the objects citing them stay, and read as unavailable. A repeat keeps the first record.
MATCH (v:SourceVersion {scope: $scope, source_id: $source_id, version: $version})
WITH v, v.withdrawn_at IS NULL AS first
REMOVE v.text
SET v.withdrawn_at = CASE WHEN first THEN $withdrawn_at ELSE v.withdrawn_at END,
    v.withdrawn_by = CASE WHEN first THEN $withdrawn_by ELSE v.withdrawn_by END,
    v.withdrawal_reason = CASE WHEN first THEN $withdrawal_reason ELSE v.withdrawal_reason END
RETURN v {.*} AS v
