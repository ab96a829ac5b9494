// params: deployment
// Runs whose execution or cleanup has not stopped (worker-start recovery, busy checks).
MATCH (r:SupervisionRun {deployment: $deployment, stopped: false})
RETURN r.id AS id
