// Search in English: a second full-text index over the same fields with the `english`
// analyzer (stop words, Porter stemming), beside `search_text` (cjk) that Chinese queries
// keep using (engine/search/text.py `index_for`; the measurement is in docs/search.md).
// The fields are listed in another order than in `search_text`: Neo4j takes two full-text
// indexes over the same labels and the same property list for one ("IF NOT EXISTS" would
// then create nothing), whatever their analyzers.
CREATE FULLTEXT INDEX search_text_en IF NOT EXISTS
FOR (n:EntityVersion|EventVersion|RelationVersion|Summary|Passage)
ON EACH [n.text, n.name, n.title, n.description, n.reason, n.scope]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}};
CALL db.awaitIndex('search_text_en', 1800);
