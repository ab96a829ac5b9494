// params: rows
// Record first versions of new signals (UNWIND-batched), each citing its passage: a row whose
// source version is not in the scope is not written, and the caller rejects the whole write.
// Instants arrive as [epoch seconds, nanosecond] pairs (graph/story/codec.write_row).
UNWIND $rows AS row
MATCH (sv:SourceVersion {scope: row.scope, source_id: row.props.source_id,
                         version: row.props.source_version})
CREATE (n:Signal:StoryObject {id: row.id, scope: row.scope})
SET n.name = row.props.kind, n.status = row.props.status
CREATE (n)-[:VERSION]->(v:SignalVersion)
FOREACH (k IN keys(row.instants) |
  SET v[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
SET v += row.props
CREATE (v)-[:CITES {locator: row.props.locator}]->(sv)
RETURN count(v) AS written
