// params: scope, id
MATCH (c:WatchCheckpoint {id: $id})
WHERE c.scope = $scope
RETURN c {.*} AS c
