// params: rows
// Stage summaries over an interval and source scope; linked to their story, events, entities.
UNWIND $rows AS row
CREATE (s:Summary:StoryObject)
SET s = row
WITH s, row
OPTIONAL MATCH (st:Story {id: row.story_id})
FOREACH (_ IN CASE WHEN st IS NULL THEN [] ELSE [1] END | MERGE (st)-[:REVIEWS]->(s))
WITH s, row
CALL (s, row) {
  UNWIND row.event_ids AS eid
  MATCH (ev:Event {id: eid})
  MERGE (s)-[:COVERS]->(ev)
}
CALL (s, row) {
  UNWIND row.entity_ids AS nid
  MATCH (en:Entity {id: nid})
  MERGE (s)-[:DESCRIBES]->(en)
}
RETURN count(s) AS written
