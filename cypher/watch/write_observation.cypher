// params: observation
MATCH (w:Watch {id: $observation.watch_id})
WHERE w.scope = $observation.scope
MERGE (o:WatchObservation {id: $observation.id})
ON CREATE SET o = $observation
MERGE (w)-[:OBSERVED]->(o)
RETURN o.id AS id
