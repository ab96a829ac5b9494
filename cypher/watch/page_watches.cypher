// params: scope, after_created_at, after_id, limit
// A page of a scope's watches with their bindings and step lists in one query, oldest first,
// keyset-paged on (created_at, id). The page walks Watch(scope, created_at) in order from the
// cursor and stops at `limit`: its cost grows with the page, not with the scope's watches
// (the ORDER BY names the equality key w.scope so the planner takes the index's order).
MATCH (w:Watch)
USING INDEX SEEK w:Watch(scope, created_at)
WHERE w.scope = $scope
  AND w.created_at >= coalesce($after_created_at, datetime('-999999999-01-01T00:00:00Z'))
  AND ($after_created_at IS NULL
       OR w.created_at > $after_created_at
       OR (w.created_at = $after_created_at AND w.id > $after_id))
WITH w
ORDER BY w.scope, w.created_at, w.id
LIMIT $limit
CALL (w) {
  OPTIONAL MATCH (w)-[:BINDS]->(b:WatchBinding)
  RETURN collect(b {.*}) AS bindings
}
CALL (w) {
  OPTIONAL MATCH (w)-[:HAS_STEP]->(s:WatchStep)
  WITH s ORDER BY s.ordinal
  RETURN collect(s {.*}) AS steps
}
RETURN w {.*} AS w, bindings, steps
ORDER BY w.created_at, w.id
