// Search speed (issue 30 item 7): the full-text index also holds each document's scope, so a
// search asks Lucene for one scope's best matches only (engine/search/text.py `scoped`) and
// caps what Lucene hands over, instead of reading every scope's matches and filtering them
// afterwards (a search cost 2x at the 10x scope). Same fields, analyzer and consistency as 072.
DROP INDEX search_text IF EXISTS;
CREATE FULLTEXT INDEX search_text IF NOT EXISTS
FOR (n:EntityVersion|EventVersion|RelationVersion|Summary|Passage)
ON EACH [n.name, n.title, n.description, n.reason, n.text, n.scope]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk', `fulltext.eventually_consistent`: false}};
CALL db.awaitIndex('search_text', 1800);
