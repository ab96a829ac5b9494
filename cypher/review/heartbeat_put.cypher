// params: row
MATCH (h:HeartbeatRun {id: $row.id})
SET h += $row
RETURN h.id AS id
