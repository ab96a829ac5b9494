// params: source, versions
// The app owns its sources: the record points at the app's current version; versions are
// immutable, and one pushed without text is kept as known but unavailable (docs/rules/story-graph.md).
MERGE (s:Source {scope: $source.scope, id: $source.id})
SET s.kind = $source.kind, s.title = $source.title, s.current_version = $source.current_version
WITH s
UNWIND $versions AS row
CREATE (v:SourceVersion)
SET v = row
CREATE (s)-[:HAS_VERSION]->(v)
RETURN count(v) AS written
