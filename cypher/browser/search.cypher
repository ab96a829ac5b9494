// Search a scope as known at a moment, through the full-text index `search_text`:
// entity versions (names, earlier names, descriptions), event versions, relation reasons,
// stage summaries and source passages (one per line, with its locator). Only text recorded
// at or before as_of is searched; each row shows the object's version believed then. `text`
// here is a Lucene query (the API escapes user text; here you may use "phrases", word*).
// Pasted as it is, it searches the demo now; edit the values on the WITH line (set as_of to a
// past instant, e.g. datetime('2026-03-17T08:00:00Z'), to search the past). Like the API, it
// asks Lucene for the scope's documents only (the index also holds `scope`, migration 091):
// the words on the searched fields, the scope as a required phrase.
WITH 'demo' AS scope, '张三' AS text, datetime() AS as_of
WITH scope, as_of, '+scope:"' + scope + '" +(' +
     reduce(q = '', f IN ['name', 'title', 'description', 'reason', 'text'] |
            q + ' ' + f + ':(' + text + ')') + ')' AS query
CALL db.index.fulltext.queryNodes('search_text', query, {limit: 1000}) YIELD node, score
WITH scope, as_of, node, score
WHERE node.scope = scope AND node.recorded_at <= as_of
OPTIONAL MATCH (o:StoryObject {id: node.id})-[:VERSION]->(then)
  WHERE then.recorded_at <= as_of AND then.retracted_at > as_of
RETURN head([l IN labels(node) WHERE l <> 'StoryObject']) AS kind,
       coalesce(node.id, node.key) AS id,
       coalesce(node.name, node.title, node.reason, node.text) AS matched,
       node.description AS description,
       CASE WHEN then IS NULL OR then = node THEN 'current' ELSE 'earlier version' END AS matched_in,
       coalesce(then.name, then.title) AS now_called,
       node.source_id AS source, node.version AS source_version, node.locator AS locator,
       round(score, 3) AS score
ORDER BY score DESC
LIMIT 50
