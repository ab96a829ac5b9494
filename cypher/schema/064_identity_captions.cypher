// Readable captions on identity nodes for Neo4j Browser (issue 15 item 5). An identity node
// (Entity, Relation, Event, Story, Suggestion) held only {scope, id}, so Browser captioned
// every node with its scope. Since this migration the write queries
// (cypher/story/write_*_versions.cypher) copy the caption of the version they record onto
// the identity node in the same transaction; this backfills the nodes written before, from
// each object's latest version (the current one). Browser captions a node by `name` first.
MATCH (n:Entity)-[:VERSION]->(v:EntityVersion)
WITH n, v ORDER BY v.seq DESC
WITH n, head(collect(v)) AS v
SET n.name = v.name, n.kind = v.kind;
MATCH (n:Relation)-[:VERSION]->(v:RelationVersion)
WITH n, v ORDER BY v.seq DESC
WITH n, head(collect(v)) AS v
SET n.name = v.type, n.type = v.type, n.confirmation = v.confirmation, n.removed = v.removed;
MATCH (n:Event)-[:VERSION]->(v:EventVersion)
WITH n, v ORDER BY v.seq DESC
WITH n, head(collect(v)) AS v
SET n.name = v.title, n.title = v.title, n.at = v.at;
MATCH (n:Story)-[:VERSION]->(v:StoryVersion)
WITH n, v ORDER BY v.seq DESC
WITH n, head(collect(v)) AS v
SET n.name = v.name;
MATCH (n:Suggestion)-[:VERSION]->(v:SuggestionVersion)
WITH n, v ORDER BY v.seq DESC
WITH n, head(collect(v)) AS v
SET n.name = v.field, n.status = v.status
