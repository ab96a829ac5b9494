// params: scope, source_ids, texts, forever
// Current events of one story scope that already cite text of a review batch (docs/rules/reviews.md:
// 手动操作重新整理所选区间 — a re-read message must not become a second event). Sought from the
// batch's sources (index source_version_source: scope, source_id) through the references that
// locate them, so the cost follows the batch's sources, not the scope. An event is matched by
// the text its reference cites (read from the cited version), never by offsets: offsets move
// between versions while an old line keeps its text. Only `chars:a-b` locators can be read;
// a withdrawn version has no text and offers nothing.
UNWIND $source_ids AS source_id
MATCH (sv:SourceVersion {scope: $scope, source_id: source_id})<-[:LOCATES]-(r:Reference)
WHERE r.owner_kind = 'event' AND r.locator STARTS WITH 'chars:' AND sv.text IS NOT NULL
WITH r.owner_id AS id, sv.text AS text, split(substring(r.locator, 6), '-') AS bounds
WITH id, text, toInteger(bounds[0]) AS a, toInteger(bounds[1]) AS b
WHERE a >= 0 AND b > a
WITH id, substring(text, a, b - a) AS cited
WHERE any(t IN $texts WHERE t CONTAINS cited)
WITH id, collect(DISTINCT cited) AS cited
MATCH (cur:EventVersion {id: id})
WHERE cur.retracted_at = $forever AND cur.scope = $scope
RETURN id, cur.title AS title, cur.at AS at, cited
