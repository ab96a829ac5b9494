// params: vector, k, min_similarity, scope, as_of, labels
// Hybrid search's vector list: the vector index's $k nearest neighbours of the query's vector
// (over every scope: Neo4j's vector index cannot be filtered), then the ones of $scope,
// recorded by $as_of, of the kinds asked, with cosine >= $min_similarity. `yielded` and
// `weakest` (the lowest cosine the index handed over) tell the caller whether asking for more
// neighbours could add any (graph/search/store.py grows $k until the scope has enough).
CALL db.index.vector.queryNodes('search_vector', $k, $vector) YIELD node, score
// Neo4j's cosine score is (1 + cosine) / 2; the floor and the answer use the cosine
WITH node, 2.0 * score - 1.0 AS cosine
WITH collect({node: node, cosine: cosine}) AS found
RETURN size(found) AS yielded,
       reduce(low = 1.0, f IN found | CASE WHEN f.cosine < low THEN f.cosine ELSE low END) AS weakest,
       [f IN found WHERE f.cosine >= $min_similarity AND f.node.scope = $scope
          AND f.node.recorded_at <= $as_of
          AND any(label IN labels(f.node) WHERE label IN $labels)
        | {id: elementId(f.node), similarity: f.cosine}] AS hits
