// params: checkpoint
MATCH (w:Watch {id: $checkpoint.watch_id})
WHERE w.scope = $checkpoint.scope
MERGE (c:WatchCheckpoint {id: $checkpoint.id})
ON CREATE SET c = $checkpoint
MERGE (w)-[:CHECKPOINT]->(c)
RETURN c {.*} AS c
