// params: runs
// $runs: maps of id, scope, watch_id, deployment, status ('queued') and queued_at.
// A requested check is recorded before its job is enqueued, so a job lost before any
// worker took it is still known to the reconciler. An existing run is left as it is.
UNWIND $runs AS run
MERGE (r:WatchRun {scope: run.scope, id: run.id})
ON CREATE SET r = run
RETURN r.id AS id, r.status AS status
