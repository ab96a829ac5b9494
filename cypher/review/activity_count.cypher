// params: deployment, scopes, scope_key, config_id, since, until
// How many activity rows `activity_page` lists with these filters (asked for totalCount).
CALL () {
  MATCH (h:HeartbeatRun)
  WHERE h.deployment = $deployment
    AND ($scopes IS NULL OR h.scope IN $scopes)
    AND ($scope_key IS NULL OR h.scope_key = $scope_key)
    AND ($config_id IS NULL OR h.config_id = $config_id)
    AND ($since IS NULL OR h.claimed_at >= $since)
    AND ($until IS NULL OR h.claimed_at < $until)
  RETURN count(h) AS n
  UNION ALL
  MATCH (r:SupervisionRun)
  WHERE r.deployment = $deployment AND $config_id IS NULL
    AND ($scopes IS NULL OR r.scope IN $scopes)
    AND ($scope_key IS NULL OR r.scope_key = $scope_key)
    AND ($since IS NULL OR r.created_at >= $since)
    AND ($until IS NULL OR r.created_at < $until)
    AND NOT EXISTS { MATCH (h:HeartbeatRun {id: r.heartbeat_run_id}) }
    AND NOT EXISTS { MATCH (h:HeartbeatRun {supervision_run_id: r.id}) }
  RETURN count(r) AS n
}
RETURN sum(n) AS n
