// params: rows, forever
// Record later versions of signals (UNWIND-batched): each retracts its current predecessor
// at its own recorded_at and cites the signal's passage again; the identity node keeps the
// current status. Instants arrive as [epoch seconds, nanosecond] pairs
// (graph/story/codec.write_row). `orphaned` counts versions whose predecessor was not
// current (a concurrent writer): the caller aborts.
UNWIND $rows AS row
MATCH (n:Signal {id: row.id})
WHERE n.scope = row.scope
OPTIONAL MATCH (prev:SignalVersion {id: row.id, seq: row.seq - 1})
  WHERE prev.retracted_at = $forever
MATCH (sv:SourceVersion {scope: row.scope, source_id: row.props.source_id,
                         version: row.props.source_version})
CREATE (n)-[:VERSION]->(v:SignalVersion)
FOREACH (k IN keys(row.instants) |
  SET v[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
SET v += row.props
SET prev.retracted_at = v.recorded_at, n.status = v.status
CREATE (v)-[:CITES {locator: row.props.locator}]->(sv)
RETURN count(v) AS written, sum(CASE WHEN prev IS NULL THEN 1 ELSE 0 END) AS orphaned
