// params: scope, id
MATCH (r:WatchReceipt {id: $id})
WHERE r.scope = $scope
RETURN r {.*} AS r
