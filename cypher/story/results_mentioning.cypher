// params: entity_id, result_ids
MATCH (r:Result)-[:MENTIONS]->(:Entity {id: $entity_id})
WHERE r.id IN $result_ids
RETURN r.id AS id
