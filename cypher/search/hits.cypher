// params: index_query, scope, as_of, valid_at, kinds, standings, weights, earlier_weight, after, limit, candidates
// search (issue 30): the full-text hits of one scope as of $as_of, one row per object, ranked
// by engine/search/ranking.py's formula (the weights arrive as parameters), then paged after
// the keyset $after ({rank, mentions, key}) in the database.
// Time-sliced: only text recorded at or before $as_of matches (a version's own recorded_at,
// a passage's version's); an object answers with its version believed at $as_of, never one
// retracted before it; text matched only in an earlier version (an earlier name) counts as
// not current. $valid_at keeps entities and relations valid then and events that happened.
// Only the $candidates best-scoring matches (after the scope, time and kind filters) are
// ranked: Lucene yields them best first, so the read stops there (README "Search").
// The same line in several versions of a source is one hit: the latest version known then.
CALL db.index.fulltext.queryNodes('search_text', $index_query) YIELD node, score
WHERE node.scope = $scope AND node.recorded_at <= $as_of
WITH node, score,
     CASE
       WHEN node:EntityVersion THEN 'entity'
       WHEN node:EventVersion THEN 'event'
       WHEN node:RelationVersion THEN 'relation'
       WHEN node:Summary THEN 'summary'
       ELSE 'passage'
     END AS kind
WHERE kind IN $kinds
WITH node, score, kind LIMIT $candidates
OPTIONAL MATCH (:StoryObject {id: node.id})-[:VERSION]->(at)
  WHERE at.recorded_at <= $as_of AND at.retracted_at > $as_of
WITH node, score, kind, CASE WHEN kind IN ['summary', 'passage'] THEN node ELSE at END AS cur
WHERE cur IS NOT NULL
  AND ($valid_at IS NULL
       OR kind IN ['summary', 'passage']
       OR (kind = 'event' AND cur.at <= $valid_at)
       OR (kind IN ['entity', 'relation']
           AND (cur.valid_from IS NULL OR cur.valid_from <= $valid_at)
           AND (cur.valid_to IS NULL OR cur.valid_to > $valid_at)))
WITH kind, cur, node, score, node = cur AS current
ORDER BY score DESC
WITH kind, cur, coalesce(cur.id, cur.key) AS key, max(score) AS score,
     max(CASE WHEN current THEN 1 ELSE 0 END) = 1 AS current,
     collect(node {.name, .title, .description, .reason, .text, .seq, current: current})[0..3] AS matched
// one hit per line of a source: its latest version recorded by then
WITH kind, cur, key, score, current, matched,
     CASE WHEN kind = 'passage' THEN cur.source_id + '#' + cur.locator + '#' + cur.text
          ELSE key END AS line
ORDER BY cur.recorded_at DESC
WITH kind, line, head(collect({cur: cur, key: key, score: score, current: current,
                               matched: matched})) AS top
WITH kind, top.cur AS cur, top.key AS key, top.score AS score, top.current AS current,
     top.matched AS matched
WITH kind, cur, key, score, current, matched,
     CASE
       WHEN kind = 'passage' THEN 'confirmed'
       WHEN kind = 'relation' AND (cur.removed OR cur.confirmation = 'rejected') THEN 'removed'
       WHEN cur.confirmation = 'confirmed' OR size(coalesce(cur.confirmed_fields, [])) > 0
         THEN 'confirmed'
       WHEN cur.by STARTS WITH 'user:' OR size(coalesce(cur.user_fields, [])) > 0
         THEN 'person_edited'
       ELSE 'suggested'
     END AS standing
WHERE $standings IS NULL OR standing IN $standings
WITH kind, cur, key, score, current, matched, standing,
     score * $weights[standing] * CASE WHEN current THEN 1.0 ELSE $earlier_weight END AS rank,
     CASE kind
       WHEN 'entity' THEN COUNT { (r:Result)-[:MENTIONS]->(:Entity {id: key}) WHERE r.recorded_at <= $as_of }
       WHEN 'passage' THEN 0
       ELSE COUNT { (ref:Reference {owner_id: key}) WHERE ref.recorded_at <= $as_of }
     END AS mentions
ORDER BY rank DESC, mentions DESC, key ASC
WITH collect({kind: kind, key: key, v: cur {.*}, matched: matched, score: score, rank: rank,
              current: current, standing: standing, mentions: mentions}) AS hits
RETURN size(hits) AS total,
       [h IN hits WHERE $after IS NULL
          OR h.rank < $after.rank
          OR (h.rank = $after.rank AND (h.mentions < $after.mentions
              OR (h.mentions = $after.mentions AND h.key > $after.key)))][0..$limit + 1] AS page
