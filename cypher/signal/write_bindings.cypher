// params: rows, now
// Record new person binding versions (UNWIND-batched): the current version of each binding
// is retracted at $now and the new one recorded; two writers of the same next version clash
// on the (id, seq) constraint and the later one writes nothing (CONFLICT).
// Instants arrive as [epoch seconds, nanosecond] pairs (graph/story/codec.write_row).
UNWIND $rows AS row
MERGE (n:PersonBinding {id: row.id})
  ON CREATE SET n.scope = row.scope
FOREACH (old IN [(n)-[:VERSION]->(o:PersonBindingVersion) WHERE o.retracted_at > $now | o] |
  SET old.retracted_at = $now)
CREATE (n)-[:VERSION]->(v:PersonBindingVersion)
FOREACH (k IN keys(row.instants) |
  SET v[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
SET v += row.props
RETURN count(v) AS written
