// params: id
// The committed leaf and navigation outputs of a run, for navigation and publish.
MATCH (r:SupervisionRun {id: $id})
CALL (r) {
  OPTIONAL MATCH (r)-[:HAS_BATCH]->(b:ReviewBatch)
  WHERE b.state = 'committed'
  RETURN collect(b {.index, .output}) AS leaves
}
CALL (r) {
  OPTIONAL MATCH (r)-[:HAS_NODE]->(n:ReviewNavigationNode)
  RETURN collect(n {.node_id, .output, .is_root}) AS nodes
}
RETURN leaves, nodes
