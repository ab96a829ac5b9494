// params: rows, forever
// Record new Story versions (UNWIND-batched). Nothing is updated in place: a version with
// seq > 1 retracts its current predecessor at its own recorded_at (DESIGN "Time").
// `orphaned` counts versions whose predecessor was not current: the caller aborts.
UNWIND $rows AS row
MERGE (n:Story {id: row.id})
  ON CREATE SET n:StoryObject, n.scope = row.scope
// The identity node keeps a caption of the version written, for Neo4j Browser (backfilled
// by cypher/schema/064_identity_captions.cypher). Story: its current name.
SET n.name = row.props.name
WITH n, row
OPTIONAL MATCH (prev:StoryVersion {id: row.id, seq: row.seq - 1})
  WHERE prev.retracted_at = $forever
SET prev.retracted_at = row.props.recorded_at
WITH n, row, prev
CREATE (n)-[:VERSION]->(v:StoryVersion)
SET v = row.props
RETURN count(v) AS written,
       sum(CASE WHEN row.seq > 1 AND prev IS NULL THEN 1 ELSE 0 END) AS orphaned
