// params: observation
// The check's model calls (cost ledger) are written with its observation.
MATCH (w:Watch {id: $observation.watch_id})
WHERE w.scope = $observation.scope
MERGE (o:WatchObservation {id: $observation.id})
ON CREATE SET o = $observation
MERGE (w)-[:OBSERVED]->(o)
WITH o
// include: model_calls
RETURN o.id AS id
