// params: rows
// References point at a source version by locator; they never copy its text.
UNWIND $rows AS row
MATCH (o:StoryObject {id: row.owner_id})
MATCH (sv:SourceVersion {scope: row.scope, source_id: row.source_id, version: row.source_version})
CREATE (r:Reference)
SET r = row
CREATE (o)-[:CITES]->(r)-[:LOCATES]->(sv)
RETURN count(r) AS written
