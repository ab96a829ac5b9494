// params: deployment, limit
MATCH (h:HeartbeatRun {deployment: $deployment})
RETURN h.doc AS doc
ORDER BY h.claimed_at DESC
LIMIT $limit
