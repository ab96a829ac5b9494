// params: run, stages, batches, nodes, calls
// One run with its records. A batch row carries `output` only in the transaction that
// commits it, so later writes keep the stored output. `calls` are the model calls (cost
// ledger) made for what this write commits: written here, with no round trip of their own,
// each carrying its `run_id` and `batch` (read by index, model_call_run).
MERGE (r:SupervisionRun {id: $run.id})
SET r += $run
WITH r
CALL (r) {
  UNWIND $stages AS row
  MERGE (s:ReviewStage {run_id: r.id, stage: row.stage})
  SET s += row, s.scope = r.scope
  MERGE (r)-[:HAS_STAGE]->(s)
  RETURN count(s) AS stages
}
CALL (r) {
  UNWIND $batches AS row
  MERGE (b:ReviewBatch {run_id: r.id, index: row.index})
  SET b += row, b.scope = r.scope
  MERGE (r)-[:HAS_BATCH]->(b)
  RETURN count(b) AS batches
}
CALL (r) {
  UNWIND $nodes AS row
  MERGE (n:ReviewNavigationNode {run_id: r.id, node_id: row.node_id})
  SET n += row, n.scope = r.scope
  MERGE (r)-[:HAS_NODE]->(n)
  RETURN count(n) AS nodes
}
// include: model_calls
RETURN r.id AS id
