// params: scope, watch_ids
// Hand-offs of several watches in one query (the GraphQL DataLoader), oldest first.
UNWIND $watch_ids AS wid
OPTIONAL CALL (wid) {
  MATCH (h:WatchHandOff {watch_id: wid})
  WHERE h.scope = $scope
  RETURN h
  ORDER BY h.created_at, h.execution_key
}
RETURN wid AS watch_id, collect(h {.*}) AS items
