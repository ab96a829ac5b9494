// params: deployment, scopes, limit
// `review/heartbeats_list` for a caller limited to `scopes` (never null here): each scope's
// runs newest first from HeartbeatRun(deployment, scope, claimed_at), at most `limit` each,
// then the newest `limit` of those. Other scopes' runs are never read.
UNWIND $scopes AS s
CALL (s) {
  MATCH (h:HeartbeatRun)
  USING INDEX SEEK h:HeartbeatRun(deployment, scope, claimed_at)
  WHERE h.deployment = $deployment AND h.scope = s
    AND h.claimed_at <= datetime('+999999999-12-31T23:59:59.999999999Z')
  WITH h
  ORDER BY h.deployment DESC, h.scope DESC, h.claimed_at DESC
  LIMIT $limit
  RETURN h
}
RETURN h.doc AS doc
ORDER BY h.claimed_at DESC
LIMIT $limit
