// params: scope, watch_ids, limit
// Receipts of several watches in one query (the GraphQL DataLoader), newest first per watch.
UNWIND $watch_ids AS wid
OPTIONAL CALL (wid) {
  MATCH (r:WatchReceipt {watch_id: wid})
  WHERE r.scope = $scope
  RETURN r
  ORDER BY r.reported_at DESC, r.id DESC
  LIMIT $limit
}
RETURN wid AS watch_id, collect(r {.*}) AS items
