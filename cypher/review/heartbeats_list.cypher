// params: deployment, scopes, limit
// `scopes` (story scopes) limits the list to what the caller may use; null lists every run,
// those without a scope included. Newest first: the read walks
// HeartbeatRun(deployment, claimed_at) backwards and stops at `limit` (plus the runs the
// scope filter skips), so it costs what it returns, not the deployment's history (the ORDER
// BY names the equality key so the planner takes the index's order).
MATCH (h:HeartbeatRun)
USING INDEX SEEK h:HeartbeatRun(deployment, claimed_at)
WHERE h.deployment = $deployment
  AND h.claimed_at <= datetime('+999999999-12-31T23:59:59.999999999Z')
  AND ($scopes IS NULL OR h.scope IN $scopes)
RETURN h.doc AS doc
ORDER BY h.deployment DESC, h.claimed_at DESC
LIMIT $limit
