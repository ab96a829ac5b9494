// params: rows
// Remember a dismissal by fingerprint (target, field, proposed value, source version,
// locator); a fingerprint dismissed before keeps its first dismissal.
UNWIND $rows AS row
MERGE (d:Dismissal {fingerprint: row.fingerprint})
  ON CREATE SET d += row.props, d.dismissed_at = datetime(row.dismissed_at)
RETURN count(d) AS written
