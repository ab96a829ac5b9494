// params: run, stages, batches, nodes
// One run with its records. A batch row carries `output` only in the transaction that
// commits it, so later writes keep the stored output.
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
RETURN r.id AS id
