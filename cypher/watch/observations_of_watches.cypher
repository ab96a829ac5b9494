// params: scope, watch_ids, limit
// Observations of several watches in one query (the GraphQL DataLoader), newest first per watch.
UNWIND $watch_ids AS wid
OPTIONAL CALL (wid) {
  MATCH (o:WatchObservation {watch_id: wid})
  WHERE o.scope = $scope
  RETURN o
  ORDER BY o.observed_at DESC, o.id DESC
  LIMIT $limit
}
RETURN wid AS watch_id, collect(o {.*}) AS items
