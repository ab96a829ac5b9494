// params: rows
// Save to knowledge (docs/rules/reviews.md): a new version of each local knowledge entry, created when
// missing. A version is written only where the entry is still a knowledge source at the
// version the preview showed (`base_version`, null for a new entry); `written` below the
// row count means the caller aborts the transaction, so nothing is written.
UNWIND $rows AS row
MERGE (s:Source {scope: row.scope, id: row.source_id})
  ON CREATE SET s.kind = 'knowledge', s.title = row.title
WITH s, row
WHERE s.kind = 'knowledge'
  AND ((row.base_version IS NULL AND s.current_version IS NULL)
       OR s.current_version = row.base_version)
SET s.current_version = row.version
CREATE (v:SourceVersion)
SET v.scope = row.scope, v.source_id = row.source_id, v.version = row.version,
    v.text = row.text, v.recorded_at = row.recorded_at, v.by = row.by, v.origin = row.origin
CREATE (s)-[:HAS_VERSION]->(v)
RETURN count(v) AS written
