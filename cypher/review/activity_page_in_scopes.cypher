// params: deployment, scopes, scope_key, config_id, since, until, after_at, after_key, limit
// `review/activity_page` for a caller limited to `scopes` (story scopes, never null here):
// both branches seek each of the caller's scopes in order, from the cursor, through
// HeartbeatRun(deployment, scope, claimed_at) and SupervisionRun(deployment, scope,
// created_at), at most `limit` rows a branch and scope, and the newest `limit` of those
// answer. Other scopes' runs are never read: the cost grows with the page times the
// caller's scopes, not with the deployment's history. Rows and columns as activity_page.
UNWIND $scopes AS sc
CALL (sc) {
  MATCH (h:HeartbeatRun)
  USING INDEX SEEK h:HeartbeatRun(deployment, scope, claimed_at)
  WHERE h.deployment = $deployment AND h.scope = sc
    AND h.claimed_at <= coalesce($after_at, datetime('+999999999-12-31T23:59:59.999999999Z'))
    AND ($scope_key IS NULL OR h.scope_key = $scope_key)
    AND ($config_id IS NULL OR h.config_id = $config_id)
    AND ($since IS NULL OR h.claimed_at >= $since)
    AND ($until IS NULL OR h.claimed_at < $until)
  WITH h, 'heartbeat:' + h.id AS key
  WHERE $after_at IS NULL OR h.claimed_at < $after_at OR key < $after_key
  WITH h, key
  ORDER BY h.deployment DESC, h.scope DESC, h.claimed_at DESC, key DESC
  LIMIT $limit
  RETURN h.claimed_at AS at, key, h AS hb, null AS run
  UNION ALL
  MATCH (r:SupervisionRun)
  USING INDEX SEEK r:SupervisionRun(deployment, scope, created_at)
  WHERE r.deployment = $deployment AND r.scope = sc AND $config_id IS NULL
    AND r.created_at <= coalesce($after_at, datetime('+999999999-12-31T23:59:59.999999999Z'))
    AND ($scope_key IS NULL OR r.scope_key = $scope_key)
    AND ($since IS NULL OR r.created_at >= $since)
    AND ($until IS NULL OR r.created_at < $until)
    AND NOT EXISTS { MATCH (h:HeartbeatRun {id: r.heartbeat_run_id}) }
    AND NOT EXISTS { MATCH (h:HeartbeatRun {supervision_run_id: r.id}) }
  WITH r, 'supervision:' + r.id AS key
  WHERE $after_at IS NULL OR r.created_at < $after_at OR key < $after_key
  WITH r, key
  ORDER BY r.deployment DESC, r.scope DESC, r.created_at DESC, key DESC
  LIMIT $limit
  RETURN r.created_at AS at, key, null AS hb, r AS run
}
WITH at, key, hb, run
ORDER BY at DESC, key DESC
LIMIT $limit
RETURN at.epochMillis * 1000 + at.microsecond % 1000 AS at, key, hb.doc AS doc, run.id AS run_id,
       CASE WHEN hb IS NULL THEN []
            ELSE [x IN [hb.supervision_run_id] WHERE x IS NOT NULL]
                 + COLLECT { MATCH (s:SupervisionRun {heartbeat_run_id: hb.id}) RETURN s.id }
       END AS joined
