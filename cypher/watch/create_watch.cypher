// params: watch, bindings
// A new watch with its bound sources (docs/rules/watches.md). Bindings are nodes so Neo4j Browser
// shows what a watch reads.
CREATE (w:Watch)
SET w = $watch
WITH w
UNWIND $bindings AS row
CREATE (b:WatchBinding)
SET b = row
CREATE (w)-[:BINDS]->(b)
RETURN count(b) AS bindings
