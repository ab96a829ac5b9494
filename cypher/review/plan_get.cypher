// params: deployment, config_id
MATCH (p:HeartbeatPlan {config_id: $config_id, deployment: $deployment})
RETURN p.doc AS doc
