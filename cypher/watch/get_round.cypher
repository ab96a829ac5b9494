// params: scope, id
MATCH (r:WatchRound {id: $id})
WHERE r.scope = $scope
RETURN r {.*} AS r
