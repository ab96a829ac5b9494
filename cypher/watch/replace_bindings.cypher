// params: scope, watch_id, bindings
// A changed binding is a new binding (engine/watch/access.replace_bindings).
MATCH (w:Watch {id: $watch_id})
WHERE w.scope = $scope
OPTIONAL MATCH (w)-[:BINDS]->(old:WatchBinding)
DETACH DELETE old
WITH DISTINCT w
UNWIND $bindings AS row
CREATE (b:WatchBinding)
SET b = row
CREATE (w)-[:BINDS]->(b)
RETURN count(b) AS bindings
