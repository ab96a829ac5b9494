// params: deployment, scope_key, config_id, since, until, after_at, after_key, limit
// Activity (docs/rules/reviews.md), newest first, keyset-paged on (started at, row key) descending:
// every heartbeat run, and every supervision run that shares no row with a heartbeat run
// (neither saved the other's id). Each branch walks its own index, (deployment, claimed_at)
// and (deployment, created_at), backwards from the cursor and stops at `limit`, so a page
// costs what it returns (plus rows the filters skip), not the scope. The ORDER BY of each
// branch names the equality key (deployment): without it the planner sorted every row.
// Every filter but status is applied here; a row's status is the engine's, from the
// heartbeat and the run joined to it (`joined`: the ids either of them saved).
// This is the activity of a caller who may use every scope; a caller limited to some scopes
// reads `activity_page_in_scopes`.
CALL () {
  MATCH (h:HeartbeatRun)
  USING INDEX SEEK h:HeartbeatRun(deployment, claimed_at)
  WHERE h.deployment = $deployment
    AND h.claimed_at <= coalesce($after_at, datetime('+999999999-12-31T23:59:59.999999999Z'))
    AND ($scope_key IS NULL OR h.scope_key = $scope_key)
    AND ($config_id IS NULL OR h.config_id = $config_id)
    AND ($since IS NULL OR h.claimed_at >= $since)
    AND ($until IS NULL OR h.claimed_at < $until)
  WITH h, 'heartbeat:' + h.id AS key
  WHERE $after_at IS NULL OR h.claimed_at < $after_at OR key < $after_key
  WITH h, key
  ORDER BY h.deployment DESC, h.claimed_at DESC, key DESC
  LIMIT $limit
  RETURN h.claimed_at AS at, key, h AS hb, null AS run
  UNION ALL
  MATCH (r:SupervisionRun)
  USING INDEX SEEK r:SupervisionRun(deployment, created_at)
  WHERE r.deployment = $deployment AND $config_id IS NULL
    AND r.created_at <= coalesce($after_at, datetime('+999999999-12-31T23:59:59.999999999Z'))
    AND ($scope_key IS NULL OR r.scope_key = $scope_key)
    AND ($since IS NULL OR r.created_at >= $since)
    AND ($until IS NULL OR r.created_at < $until)
    AND NOT EXISTS { MATCH (h:HeartbeatRun {id: r.heartbeat_run_id}) }
    AND NOT EXISTS { MATCH (h:HeartbeatRun {supervision_run_id: r.id}) }
  WITH r, 'supervision:' + r.id AS key
  WHERE $after_at IS NULL OR r.created_at < $after_at OR key < $after_key
  WITH r, key
  ORDER BY r.deployment DESC, r.created_at DESC, key DESC
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
