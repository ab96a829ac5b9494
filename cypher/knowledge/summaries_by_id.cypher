// params: scope, ids
// Stage summaries selected by id, in this scope only (recorded once; the caller checks as_of).
MATCH (n:Summary)
WHERE n.id IN $ids AND n.scope = $scope
RETURN n {.*} AS n
