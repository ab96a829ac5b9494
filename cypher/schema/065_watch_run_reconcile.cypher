// The reconciler finds a deployment's unfinished watch checks (queued, running, deferred)
// whose job may have been lost: WatchRun(deployment, status).
CREATE INDEX watch_run_deployment_status IF NOT EXISTS FOR (r:WatchRun) ON (r.deployment, r.status);
