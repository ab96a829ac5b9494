// params: run, stages, batches, nodes, calls
// One run with its records. A batch row carries `output` only in the transaction that
// commits it, so later writes keep the stored output. `calls` are the model calls (cost
// ledger) made for what this write commits: written here, with no round trip of their own.
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
CALL (r) {
  UNWIND $calls AS row
  MERGE (c:ModelCall {id: row.id})
  SET c += row, c.run_id = r.id
  MERGE (r)-[:MADE_CALL]->(c)
  RETURN count(c) AS calls
}
CALL (r) {
  // the deployment-wide totals per stage and model that /metrics exports as counters
  UNWIND $calls AS row
  WITH row.stage AS stage, row.model AS model, count(row) AS n,
       sum(row.prompt_tokens) AS prompt, sum(row.completion_tokens) AS completion
  MERGE (t:ModelCallTotal {stage: stage, model: model})
  ON CREATE SET t.calls = 0, t.prompt_tokens = 0, t.completion_tokens = 0
  SET t.calls = t.calls + n, t.prompt_tokens = t.prompt_tokens + prompt,
      t.completion_tokens = t.completion_tokens + completion
  RETURN count(t) AS totals
}
RETURN r.id AS id
