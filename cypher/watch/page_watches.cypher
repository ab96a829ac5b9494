// params: scope, after_created_at, after_id, limit
// A page of a scope's watches with their bindings and step lists in one query, oldest first,
// keyset-paged on (created_at, id).
MATCH (w:Watch)
WHERE w.scope = $scope
  AND ($after_created_at IS NULL
       OR w.created_at > $after_created_at
       OR (w.created_at = $after_created_at AND w.id > $after_id))
WITH w
ORDER BY w.created_at, w.id
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
