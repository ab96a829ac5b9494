// params: rows, forever
// Record new Entity versions (UNWIND-batched). Nothing is updated in place: a version with
// seq > 1 retracts its current predecessor at its own recorded_at (docs/rules/story-graph.md#time).
// Instants arrive as [epoch seconds, nanosecond] pairs (graph/story/codec.write_row: two
// ints pack far cheaper than a datetime) and are stored as UTC DateTimes.
// `orphaned` counts versions whose predecessor was not current: the caller aborts.
UNWIND $rows AS row
MERGE (n:Entity {id: row.id})
  ON CREATE SET n:StoryObject, n.scope = row.scope
// The identity node keeps a caption of the version written, for Neo4j Browser (backfilled
// by cypher/schema/064_identity_captions.cypher). Entity: its current name and kind.
SET n.name = row.props.name, n.kind = row.props.kind
WITH n, row
OPTIONAL MATCH (prev:EntityVersion {id: row.id, seq: row.seq - 1})
  WHERE prev.retracted_at = $forever
WITH n, row, prev
CREATE (n)-[:VERSION]->(v:EntityVersion)
FOREACH (k IN keys(row.instants) |
  SET v[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
SET v += row.props
SET prev.retracted_at = v.recorded_at
RETURN count(v) AS written,
       sum(CASE WHEN row.seq > 1 AND prev IS NULL THEN 1 ELSE 0 END) AS orphaned
