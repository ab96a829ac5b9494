// Lists of a deployment's heartbeat and supervision runs match on `deployment` alone; the
// composite indexes of 040 need every property, so these serve the list reads.
CREATE INDEX heartbeat_run_deployment_only IF NOT EXISTS FOR (n:HeartbeatRun) ON (n.deployment);
CREATE INDEX supervision_run_deployment_only IF NOT EXISTS FOR (n:SupervisionRun) ON (n.deployment);
