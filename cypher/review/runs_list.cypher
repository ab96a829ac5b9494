// params: deployment, scope_key, scopes, after_created_at, after_id, limit
// Newest first, keyset-paged on (created_at, id) descending: the rows after the cursor's.
// `scope_key` null lists every scope. `scopes` (story scopes: project ids or global) limits
// the list to what the caller may use; null lists every scope.
MATCH (r:SupervisionRun {deployment: $deployment})
WHERE ($scope_key IS NULL OR r.scope_key = $scope_key)
  AND ($scopes IS NULL OR r.scope IN $scopes)
  AND ($after_created_at IS NULL
       OR r.created_at < $after_created_at
       OR (r.created_at = $after_created_at AND r.id < $after_id))
RETURN r.id AS id
ORDER BY r.created_at DESC, r.id DESC
LIMIT $limit
