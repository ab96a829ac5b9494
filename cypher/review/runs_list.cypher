// params: deployment, scope_key, limit
// Newest first; `scope_key` null lists every scope.
MATCH (r:SupervisionRun {deployment: $deployment})
WHERE $scope_key IS NULL OR r.scope_key = $scope_key
RETURN r.id AS id
ORDER BY r.created_at DESC
LIMIT $limit
