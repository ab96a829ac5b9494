// params: result_id
MATCH (r:Result {id: $result_id})-[m:MENTIONS]->(e:Entity)
RETURN e.id AS entity_id, m.name AS name, m.description AS description
ORDER BY entity_id
