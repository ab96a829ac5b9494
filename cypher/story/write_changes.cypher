// params: rows
// Changes link an event to an entity: proposed | supplemented | verified | revised.
UNWIND $rows AS row
MATCH (ev:Event {id: row.event_id}), (en:Entity {id: row.entity_id})
CREATE (c:Change:StoryObject)
SET c = row
CREATE (ev)-[:CHANGES]->(c)-[:AFFECTS]->(en)
RETURN count(c) AS written
