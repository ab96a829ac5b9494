// Activity pages find the supervision runs a heartbeat run saved a link to, and skip them
// as rows of their own: HeartbeatRun(supervision_run_id).
CREATE INDEX heartbeat_run_supervision IF NOT EXISTS FOR (n:HeartbeatRun) ON (n.supervision_run_id);
