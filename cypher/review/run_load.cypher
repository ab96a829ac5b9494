// params: ids
// Runs with their stage, batch and navigation-node records (the only basis for progress).
MATCH (r:SupervisionRun)
WHERE r.id IN $ids
CALL (r) {
  OPTIONAL MATCH (r)-[:HAS_STAGE]->(s:ReviewStage)
  RETURN collect(s {.stage, .state, .started_at, .ended_at, .error}) AS stages
}
CALL (r) {
  OPTIONAL MATCH (r)-[:HAS_BATCH]->(b:ReviewBatch)
  RETURN collect(b {.index, .segments, .state, .output_id, .committed_at, .attempts,
                    .error}) AS batches
}
CALL (r) {
  OPTIONAL MATCH (r)-[:HAS_NODE]->(n:ReviewNavigationNode)
  RETURN collect(n {.node_id, .leaves, .output_id, .committed_at, .is_root}) AS nodes
}
RETURN r {.*} AS run, stages, batches, nodes
