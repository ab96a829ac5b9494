// Search (issue 30): one full-text index over the searchable text of the story graph —
// entity versions (names, so earlier names too, and descriptions), event versions (titles,
// descriptions), relation versions (reasons), stage summaries and source passages (one per
// line of a source version, addressed by its locator). Analyzer `cjk` (bigrams for Chinese,
// standard tokens for Latin text; README "Search" has the measurement against `standard`).
// Not eventually consistent: the transaction that writes an object updates the index.
CREATE FULLTEXT INDEX search_text IF NOT EXISTS
FOR (n:EntityVersion|EventVersion|RelationVersion|Summary|Passage)
ON EACH [n.name, n.title, n.description, n.reason, n.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk', `fulltext.eventually_consistent`: false}};
CREATE INDEX passage_version IF NOT EXISTS FOR (p:Passage) ON (p.scope, p.source_id, p.version);
// Passages of the versions stored before this migration: each non-blank line (the same
// split as engine/search/passages.py for "\n" and "\r\n" line ends).
MATCH (v:SourceVersion)
WHERE v.text IS NOT NULL AND v.withdrawn_at IS NULL AND NOT EXISTS { (v)-[:HAS_PASSAGE]->() }
WITH v, split(replace(v.text, '\r\n', '\n'), '\n') AS lines
UNWIND range(0, size(lines) - 1) AS i
WITH v, i + 1 AS line, lines[i] AS body
WHERE trim(body) <> ''
CREATE (p:Passage {scope: v.scope, source_id: v.source_id, version: v.version, line: line,
                   locator: 'lines:' + toString(line) + '-' + toString(line),
                   key: v.source_id + '@' + v.version + '#lines:' + toString(line) + '-' + toString(line),
                   text: left(body, 2000), recorded_at: v.recorded_at})
CREATE (v)-[:HAS_PASSAGE]->(p);
