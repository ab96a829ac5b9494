// Supervision reviews (seed 004 监督者): heartbeat plans and runs, supervision runs with their
// stage / batch / navigation-node records, per-source checkpoints and the one-review lease.
// AppSettings is keyed by `key` (constraint in 001_platform): one node per deployment.
CREATE CONSTRAINT heartbeat_plan_config_id IF NOT EXISTS FOR (n:HeartbeatPlan) REQUIRE n.config_id IS UNIQUE;
CREATE INDEX heartbeat_plan_deployment IF NOT EXISTS FOR (n:HeartbeatPlan) ON (n.deployment);
CREATE CONSTRAINT heartbeat_run_id IF NOT EXISTS FOR (n:HeartbeatRun) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT heartbeat_run_claim_key IF NOT EXISTS FOR (n:HeartbeatRun) REQUIRE n.claim_key IS UNIQUE;
CREATE INDEX heartbeat_run_deployment IF NOT EXISTS FOR (n:HeartbeatRun) ON (n.deployment, n.claimed_at);
CREATE INDEX heartbeat_run_config IF NOT EXISTS FOR (n:HeartbeatRun) ON (n.config_id);
CREATE CONSTRAINT supervision_run_id IF NOT EXISTS FOR (n:SupervisionRun) REQUIRE n.id IS UNIQUE;
CREATE INDEX supervision_run_deployment IF NOT EXISTS FOR (n:SupervisionRun) ON (n.deployment, n.created_at);
CREATE INDEX supervision_run_stopped IF NOT EXISTS FOR (n:SupervisionRun) ON (n.deployment, n.stopped);
CREATE INDEX supervision_run_heartbeat IF NOT EXISTS FOR (n:SupervisionRun) ON (n.heartbeat_run_id);
CREATE CONSTRAINT review_stage_key IF NOT EXISTS FOR (n:ReviewStage) REQUIRE (n.run_id, n.stage) IS UNIQUE;
CREATE CONSTRAINT review_batch_key IF NOT EXISTS FOR (n:ReviewBatch) REQUIRE (n.run_id, n.index) IS UNIQUE;
CREATE CONSTRAINT review_navigation_key IF NOT EXISTS FOR (n:ReviewNavigationNode) REQUIRE (n.run_id, n.node_id) IS UNIQUE;
CREATE CONSTRAINT review_checkpoint_key IF NOT EXISTS FOR (n:ReviewCheckpoint) REQUIRE (n.track, n.scope_key) IS UNIQUE;
CREATE CONSTRAINT review_lease_key IF NOT EXISTS FOR (n:ReviewLease) REQUIRE n.key IS UNIQUE;
CREATE INDEX source_scope IF NOT EXISTS FOR (n:Source) ON (n.scope);
