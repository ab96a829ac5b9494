// One supervision run (seed 004): its stages (collect -> leaves -> navigation -> publish) and
// its leaf batches in order, with their state, attempts and when each was committed.
// Find an id: MATCH (r:SupervisionRun) RETURN r.id, r.scope, r.status, r.created_at
:param run_id => 'run-REPLACE-ME';

MATCH (r:SupervisionRun {id: $run_id})
OPTIONAL MATCH (r)-[:HAS_STAGE]->(s:ReviewStage)
WITH r, collect(s {.stage, .state, .started_at, .ended_at}) AS stages
MATCH path = (r)-[:HAS_BATCH]->(b:ReviewBatch)
RETURN r.status AS run_status, r.scope AS scope, stages, b.index AS batch, b.state AS state,
       b.attempts AS attempts, b.committed_at AS committed_at, b.error AS error, path
ORDER BY batch
