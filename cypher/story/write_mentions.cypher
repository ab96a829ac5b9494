// params: rows
// A result's own name and description of each entity it mentions.
UNWIND $rows AS row
MATCH (r:Result {id: row.result_id}), (e:Entity {id: row.entity_id})
CREATE (r)-[:MENTIONS {name: row.name, description: row.description}]->(e)
RETURN count(*) AS written
