// params: deployment, scopes, limit
// `scopes` (story scopes) limits the list to what the caller may use; null lists every run,
// those without a scope included.
MATCH (h:HeartbeatRun {deployment: $deployment})
WHERE $scopes IS NULL OR h.scope IN $scopes
RETURN h.doc AS doc
ORDER BY h.claimed_at DESC
LIMIT $limit
