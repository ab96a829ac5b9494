// params: scope, id
// One watch with its bindings and its persisted step list (in registration order).
MATCH (w:Watch {id: $id})
WHERE w.scope = $scope
OPTIONAL MATCH (w)-[:BINDS]->(b:WatchBinding)
WITH w, collect(b {.*}) AS bindings
OPTIONAL MATCH (w)-[:HAS_STEP]->(s:WatchStep)
WITH w, bindings, s
ORDER BY s.ordinal
RETURN w {.*} AS w, bindings, collect(s {.*}) AS steps
