// params: scopes, loop_prefix
// Story-graph sources a review may read, with their current version's text and record time;
// a withdrawn version (its text left the store) says so. A concern's own conversation (its
// id starts with `loop_prefix`) is read only by the review of that concern's replies.
MATCH (s:Source)
WHERE s.scope IN $scopes AND NOT s.id STARTS WITH $loop_prefix
OPTIONAL MATCH (s)-[:HAS_VERSION]->(v:SourceVersion {version: s.current_version})
RETURN s.id AS id, s.scope AS scope, s.kind AS kind, s.current_version AS version,
       v.text AS text, v.recorded_at AS recorded_at, v.withdrawn_at IS NOT NULL AS withdrawn
ORDER BY s.id
