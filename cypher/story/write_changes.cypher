// params: rows
// Changes link an event to an entity: proposed | supplemented | verified | revised.
// Instants arrive as [epoch seconds, nanosecond] pairs (graph/story/codec.write_row: two
// ints pack far cheaper than a datetime) and are stored as UTC DateTimes.
UNWIND $rows AS row
MATCH (ev:Event {id: row.props.event_id}), (en:Entity {id: row.props.entity_id})
CREATE (c:Change:StoryObject)
SET c = row.props
FOREACH (k IN keys(row.instants) |
  SET c[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
CREATE (ev)-[:CHANGES]->(c)-[:AFFECTS]->(en)
RETURN count(c) AS written
