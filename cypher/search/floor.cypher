// params: index, index_query, scope, as_of
// The benchmark's floor (make bench): the bare full-text call with the as-of filter, through
// the same driver; search's own cost is what it adds to this.
CALL db.index.fulltext.queryNodes($index, $index_query) YIELD node, score
WHERE node.scope = $scope AND node.recorded_at <= $as_of
RETURN count(node) AS hits, max(score) AS best
