// params: row, expected
// Compare-and-set on the revision: a checkpoint moves only from the position it was read at.
MERGE (c:ReviewCheckpoint {track: $row.track, scope_key: $row.scope_key})
ON CREATE SET c.revision = 0
WITH c
WHERE c.revision = $expected
SET c += $row
RETURN c.revision AS revision
