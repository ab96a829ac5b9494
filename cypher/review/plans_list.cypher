// params: deployment
MATCH (p:HeartbeatPlan {deployment: $deployment})
RETURN p.doc AS doc
ORDER BY p.created_at, p.config_id
