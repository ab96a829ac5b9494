// params: deployment, scope_key, after_created_at, after_id, limit
// Newest first, keyset-paged on (created_at, id) descending: the rows after the cursor's.
// `scope_key` null lists every scope. This is the list of a caller who may use every scope;
// a caller limited to some scopes reads `runs_list_in_scopes`.
// The page walks SupervisionRun(deployment, created_at) backwards from the cursor and stops
// at `limit` (plus the rows the scope_key filter skips): its cost grows with the page, not with
// the deployment's runs (the ORDER BY names the equality key so the planner takes the
// index's order).
MATCH (r:SupervisionRun)
USING INDEX SEEK r:SupervisionRun(deployment, created_at)
WHERE r.deployment = $deployment
  AND r.created_at <= coalesce($after_created_at, datetime('+999999999-12-31T23:59:59.999999999Z'))
  AND ($scope_key IS NULL OR r.scope_key = $scope_key)
  AND ($after_created_at IS NULL
       OR r.created_at < $after_created_at
       OR (r.created_at = $after_created_at AND r.id < $after_id))
RETURN r.id AS id
ORDER BY r.deployment DESC, r.created_at DESC, r.id DESC
LIMIT $limit
