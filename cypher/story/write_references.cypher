// params: rows
// References point at a source version by locator; they never copy its text.
// Instants arrive as [epoch seconds, nanosecond] pairs (graph/story/codec.write_row: two
// ints pack far cheaper than a datetime) and are stored as UTC DateTimes.
UNWIND $rows AS row
MATCH (o:StoryObject {id: row.props.owner_id})
MATCH (sv:SourceVersion {scope: row.props.scope, source_id: row.props.source_id,
                         version: row.props.source_version})
CREATE (r:Reference)
SET r = row.props
FOREACH (k IN keys(row.instants) |
  SET r[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
CREATE (o)-[:CITES]->(r)-[:LOCATES]->(sv)
RETURN count(r) AS written
