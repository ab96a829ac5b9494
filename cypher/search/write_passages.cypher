// params: rows
// The passages of newly written source versions (engine/search/passages.py splits them),
// written by the transaction that writes the versions, so search finds a version's lines as
// soon as it is committed. Each passage takes its version's record time.
UNWIND $rows AS row
MATCH (v:SourceVersion {scope: row.scope, source_id: row.source_id, version: row.version})
CREATE (p:Passage)
SET p = row, p.recorded_at = v.recorded_at
CREATE (v)-[:HAS_PASSAGE]->(p)
RETURN count(p) AS written
