// params: name, checksum, mark
// Record one applied migration once: of two processes applying it together, the one whose
// mark is stored created the record (`mine`); the checksum tells a changed file.
MERGE (m:Migration {name: $name})
ON CREATE SET m.checksum = $checksum, m.applied_at = datetime(), m.mark = $mark
RETURN m.mark = $mark AS mine, m.checksum AS checksum
