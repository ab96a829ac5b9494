// params: deployment, scope_key, scopes, limit
// Newest first; `scope_key` null lists every scope. `scopes` (story scopes: project ids or
// global) limits the list to what the caller may use; null lists every scope.
MATCH (r:SupervisionRun {deployment: $deployment})
WHERE ($scope_key IS NULL OR r.scope_key = $scope_key)
  AND ($scopes IS NULL OR r.scope IN $scopes)
RETURN r.id AS id
ORDER BY r.created_at DESC
LIMIT $limit
