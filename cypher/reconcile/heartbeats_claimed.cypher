// params: deployment, claimed_before, limit
// Heartbeat runs of this deployment still `claimed` (no report finished them) and claimed
// before the grace period: the reconciler checks each one has a live job.
MATCH (h:HeartbeatRun)
USING INDEX SEEK h:HeartbeatRun(deployment, claimed_at)
WHERE h.deployment = $deployment AND h.claimed_at < $claimed_before AND h.state = 'claimed'
RETURN h.id AS id, h.claim_key AS claim_key
ORDER BY h.claimed_at
LIMIT $limit
