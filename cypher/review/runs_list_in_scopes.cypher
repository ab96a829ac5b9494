// params: deployment, scope_key, scopes, after_created_at, after_id, limit
// `review/runs_list` for a caller limited to `scopes` (story scopes, never null here): each
// scope's runs are read newest first from SupervisionRun(deployment, scope, created_at), from
// the cursor, at most `limit` of them, and the newest `limit` of those answer. The page never
// walks other scopes' runs: its cost grows with the page times the caller's scopes.
UNWIND $scopes AS s
CALL (s) {
  MATCH (r:SupervisionRun)
  USING INDEX SEEK r:SupervisionRun(deployment, scope, created_at)
  WHERE r.deployment = $deployment AND r.scope = s
    AND r.created_at <= coalesce($after_created_at, datetime('+999999999-12-31T23:59:59.999999999Z'))
    AND ($scope_key IS NULL OR r.scope_key = $scope_key)
    AND ($after_created_at IS NULL
         OR r.created_at < $after_created_at
         OR (r.created_at = $after_created_at AND r.id < $after_id))
  WITH r
  ORDER BY r.deployment DESC, r.scope DESC, r.created_at DESC, r.id DESC
  LIMIT $limit
  RETURN r.created_at AS at, r.id AS id
}
RETURN id
ORDER BY at DESC, id DESC
LIMIT $limit
