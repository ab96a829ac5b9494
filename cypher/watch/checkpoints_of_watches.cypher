// params: scope, watch_ids, limit
// Checkpoints of several watches in one query (the GraphQL DataLoader), newest first per watch.
UNWIND $watch_ids AS wid
OPTIONAL CALL (wid) {
  MATCH (c:WatchCheckpoint {watch_id: wid})
  WHERE c.scope = $scope
  RETURN c
  ORDER BY c.recorded_at DESC, c.id DESC
  LIMIT $limit
}
RETURN wid AS watch_id, collect(c {.*}) AS items
