// params: id, deployment
// One heartbeat run of this deployment with the report text it stored (null until done).
MATCH (h:HeartbeatRun {id: $id})
WHERE h.deployment = $deployment
RETURN h.doc AS doc, h.report AS report
