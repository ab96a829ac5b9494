// params: deployment, scopes
// `scopes` (story scopes) limits the list to what the caller may use; null lists every plan.
MATCH (p:HeartbeatPlan {deployment: $deployment})
WHERE $scopes IS NULL OR p.scope IN $scopes
RETURN p.doc AS doc
ORDER BY p.created_at, p.config_id
