// params: deployment
// The latest claimed slot of every plan (scheduled runs only).
MATCH (h:HeartbeatRun {deployment: $deployment})
WHERE h.slot IS NOT NULL AND h.config_id IS NOT NULL
RETURN h.config_id AS config_id, max(h.slot) AS slot
