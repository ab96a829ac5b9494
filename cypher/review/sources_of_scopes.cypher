// params: scopes
// Story-graph sources a review may read, with their current version's text and record time;
// a withdrawn version (its text left the store) says so.
MATCH (s:Source)
WHERE s.scope IN $scopes
OPTIONAL MATCH (s)-[:HAS_VERSION]->(v:SourceVersion {version: s.current_version})
RETURN s.id AS id, s.scope AS scope, s.kind AS kind, s.current_version AS version,
       v.text AS text, v.recorded_at AS recorded_at, v.withdrawn_at IS NOT NULL AS withdrawn
ORDER BY s.id
