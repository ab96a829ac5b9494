// One supervision run (docs/rules/reviews.md): its stages (collect -> leaves -> navigation -> publish) and
// its leaf batches in order, with their state, attempts and when each was committed.
// Find an id: MATCH (r:SupervisionRun) RETURN r.id, r.scope, r.status, r.created_at
// Pasted as it is, it shows the newest supervision run; put a run id on the WITH line for another.
WITH '' AS run_id  // '': the newest run
MATCH (r:SupervisionRun)
WHERE r.deployment IS NOT NULL AND r.created_at IS NOT NULL AND (run_id = '' OR r.id = run_id)
WITH r ORDER BY r.created_at DESC LIMIT 1
OPTIONAL MATCH (r)-[:HAS_STAGE]->(s:ReviewStage)
WITH r, collect(s {.stage, .state, .started_at, .ended_at}) AS stages
MATCH path = (r)-[:HAS_BATCH]->(b:ReviewBatch)
RETURN r.status AS run_status, r.scope AS scope, stages, b.index AS batch, b.state AS state,
       b.attempts AS attempts, b.committed_at AS committed_at, b.error AS error, path
ORDER BY batch
