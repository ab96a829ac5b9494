// params: row
// Plans are identified by configId only; same name and scope never merge.
MERGE (p:HeartbeatPlan {config_id: $row.config_id})
SET p += $row
RETURN p.config_id AS config_id
