// params: scope, watch_id, steps, run_id
// The step list is persisted with the watch as a whole: an invalid list never reaches this
// query, so nothing is ever partly saved (docs/rules/watches.md).
MATCH (w:Watch {id: $watch_id})
WHERE w.scope = $scope
SET w.steps_run_id = $run_id
WITH w
OPTIONAL MATCH (w)-[:HAS_STEP]->(old:WatchStep)
DETACH DELETE old
WITH DISTINCT w
UNWIND $steps AS row
CREATE (s:WatchStep)
SET s = row
CREATE (w)-[:HAS_STEP]->(s)
RETURN count(s) AS steps
