// params: scope, watch_ids
// Grant records of several watches in one query (the GraphQL DataLoader), revoked included.
UNWIND $watch_ids AS wid
OPTIONAL CALL (wid) {
  MATCH (g:WatchGrant {watch_id: wid})
  WHERE g.scope = $scope
  RETURN g
  ORDER BY g.issued_at, g.id
}
RETURN wid AS watch_id, collect(g {.*}) AS items
