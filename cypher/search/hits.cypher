// params: index, index_query, unigram, lucene_limit, hybrid, vector_hits, rrf_k, lexical_weight, vector_weight, scope, as_of, valid_at, labels, standings, weights, earlier_weight, after, limit, candidates
// search: the hits of one scope as of $as_of, one row per object, ranked by
// engine/search/ranking.py's formula (the weights arrive as parameters), then paged after
// the keyset $after ({rank, mentions, key}) in the database.
// Two lists feed it: the full-text hits and, in hybrid search, $vector_hits: the scope's
// nearest neighbours of the query's vector with cosine >= the floor ({id, similarity}, read
// by cypher/search/vector_neighbours.cypher). Both go through the same filters, so neither returns text of another scope, text recorded
// after $as_of, or a kind not asked for ($labels).
// Time-sliced: only text recorded at or before $as_of matches (a version's own recorded_at,
// a passage's version's); an object answers with its version believed at $as_of, never one
// retracted before it; text matched only in an earlier version (an earlier name) counts as
// not current. $valid_at keeps entities and relations valid then and events that happened.
// Only the $candidates best-scoring full-text matches (after the scope, time and kind
// filters) are ranked. $index_query names the scope itself (engine/search/text.py
// `scoped`), so Lucene keeps only this scope's documents and hands over at most its
// $lucene_limit best: the cost follows the answer, not the size of the scope or of the other
// scopes (docs/guides/search.md). `yielded` says how many it handed over and `passed` how many the
// scope, time and kind filters kept; when Lucene gave its limit and fewer than $candidates
// passed, the caller asks again for more.
// The same line in several versions of a source is one hit: the latest version known then.
// A Chinese query is also asked of $unigram ([{index, query, weight}], else []): the index
// whose terms are single characters; a node's weighted score there is added to its score
// in $index (engine/search/text.py). `yielded` counts what $index handed over.
CALL db.index.fulltext.queryNodes($index, $index_query, {limit: $lucene_limit})
  YIELD node, score
WITH collect({node: node, score: score}) AS primary
CALL (primary) {
  UNWIND $unigram AS also
  CALL db.index.fulltext.queryNodes(also.index, also.query, {limit: $lucene_limit})
    YIELD node, score
  RETURN collect({node: node, score: also.weight * score}) AS extra
}
CALL (primary, extra) {
  UNWIND primary + extra AS found
  WITH found.node AS node, sum(found.score) AS score
  ORDER BY score DESC
  RETURN collect({node: node, score: score}) AS lexical
}
WITH size(primary) AS yielded,
     [found IN lexical WHERE found.node.scope = $scope AND found.node.recorded_at <= $as_of
        AND any(label IN labels(found.node) WHERE label IN $labels)][0..$candidates] AS lexical
CALL (lexical) {
CALL (lexical) {
  UNWIND lexical AS found
  RETURN found.node AS node, found.score AS score, null AS similarity
  UNION ALL
  // the vector index's neighbours of this scope, already filtered by scope, time, kind and
  // the similarity floor (cypher/search/vector_neighbours.cypher)
  UNWIND $vector_hits AS found
  MATCH (node) WHERE elementId(node) = found.id
  RETURN node, null AS score, found.similarity AS similarity
}
WITH node, score, similarity,
     CASE
       WHEN node:EntityVersion THEN 'entity'
       WHEN node:EventVersion THEN 'event'
       WHEN node:RelationVersion THEN 'relation'
       WHEN node:Summary THEN 'summary'
       ELSE 'passage'
     END AS kind
OPTIONAL MATCH (:StoryObject {id: node.id})-[:VERSION]->(at)
  WHERE at.recorded_at <= $as_of AND at.retracted_at > $as_of
WITH node, score, similarity, kind,
     CASE WHEN kind IN ['summary', 'passage'] THEN node ELSE at END AS cur
WHERE cur IS NOT NULL
  AND ($valid_at IS NULL
       OR kind IN ['summary', 'passage']
       OR (kind = 'event' AND cur.at <= $valid_at)
       OR (kind IN ['entity', 'relation']
           AND (cur.valid_from IS NULL OR cur.valid_from <= $valid_at)
           AND (cur.valid_to IS NULL OR cur.valid_to > $valid_at)))
WITH kind, cur, node, score, similarity, node = cur AS current
ORDER BY coalesce(score, -1.0) DESC, coalesce(similarity, -2.0) DESC
WITH kind, cur, coalesce(cur.id, cur.key) AS key, max(score) AS score,
     max(similarity) AS similarity, max(CASE WHEN current THEN 1 ELSE 0 END) = 1 AS current,
     collect(node {.name, .title, .description, .reason, .text, .seq, current: current})[0..3] AS matched
// one hit per line of a source: its latest version recorded by then
WITH kind, cur, key, score, similarity, current, matched,
     CASE WHEN kind = 'passage' THEN cur.source_id + '#' + cur.locator + '#' + cur.text
          ELSE key END AS line
ORDER BY cur.recorded_at DESC
WITH kind, line, head(collect({cur: cur, key: key, score: score, similarity: similarity,
                               current: current, matched: matched})) AS top
WITH kind, top.cur AS cur, top.key AS key, top.score AS score, top.similarity AS similarity,
     top.current AS current, top.matched AS matched
WITH kind, cur, key, score, similarity, current, matched,
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
// hybrid: each hit's place in the full-text list and in the vector list (null: absent)
ORDER BY coalesce(score, -1.0) DESC, key
WITH collect({kind: kind, cur: cur, key: key, score: score, similarity: similarity,
              current: current, matched: matched, standing: standing}) AS found
UNWIND range(0, size(found) - 1) AS i
WITH found[i] AS h, CASE WHEN found[i].score IS NULL THEN null ELSE i + 1 END AS lexical_rank
ORDER BY coalesce(h.similarity, -2.0) DESC, h.key
WITH collect({h: h, lexical_rank: lexical_rank}) AS found
UNWIND range(0, size(found) - 1) AS i
WITH found[i].h AS h, found[i].lexical_rank AS lexical_rank,
     CASE WHEN found[i].h.similarity IS NULL THEN null ELSE i + 1 END AS vector_rank
WITH h.kind AS kind, h.cur AS cur, h.key AS key, coalesce(h.score, 0.0) AS score,
     h.similarity AS similarity, h.current AS current, h.matched AS matched,
     h.standing AS standing,
     CASE WHEN NOT $hybrid THEN h.score
          ELSE coalesce($lexical_weight / ($rrf_k + lexical_rank), 0.0)
               + coalesce($vector_weight / ($rrf_k + vector_rank), 0.0) END
       * $weights[h.standing] * CASE WHEN h.current THEN 1.0 ELSE $earlier_weight END AS rank
WITH kind, cur, key, score, similarity, current, matched, standing, rank,
     CASE kind
       WHEN 'entity' THEN COUNT { (r:Result)-[:MENTIONS]->(:Entity {id: key}) WHERE r.recorded_at <= $as_of }
       WHEN 'passage' THEN 0
       ELSE COUNT { (ref:Reference {owner_id: key}) WHERE ref.recorded_at <= $as_of }
     END AS mentions
ORDER BY rank DESC, mentions DESC, key ASC
WITH collect({kind: kind, key: key, v: cur {.*, embedding: null}, matched: matched, score: score,
              similarity: similarity, rank: rank, current: current, standing: standing,
              mentions: mentions}) AS hits
RETURN size(hits) AS total,
       [h IN hits WHERE $after IS NULL
          OR h.rank < $after.rank
          OR (h.rank = $after.rank AND (h.mentions < $after.mentions
              OR (h.mentions = $after.mentions AND h.key > $after.key)))][0..$limit + 1] AS page
}
RETURN total, page, yielded, size(lexical) AS passed
