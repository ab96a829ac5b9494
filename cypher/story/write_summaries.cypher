// params: rows
// Stage summaries over an interval and source scope; linked to their story, events, entities.
// Instants arrive as [epoch seconds, nanosecond] pairs (graph/story/codec.write_row: two
// ints pack far cheaper than a datetime) and are stored as UTC DateTimes.
UNWIND $rows AS row
CREATE (s:Summary:StoryObject)
SET s = row.props
FOREACH (k IN keys(row.instants) |
  SET s[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
WITH s, row
OPTIONAL MATCH (st:Story {id: row.props.story_id})
FOREACH (_ IN CASE WHEN st IS NULL THEN [] ELSE [1] END | MERGE (st)-[:REVIEWS]->(s))
WITH s, row
CALL (s, row) {
  UNWIND row.props.event_ids AS eid
  MATCH (ev:Event {id: eid})
  MERGE (s)-[:COVERS]->(ev)
}
CALL (s, row) {
  UNWIND row.props.entity_ids AS nid
  MATCH (en:Entity {id: nid})
  MERGE (s)-[:DESCRIBES]->(en)
}
RETURN count(s) AS written
