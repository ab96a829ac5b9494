// params: scope, id, props
MATCH (c:WatchCheckpoint {id: $id})
WHERE c.scope = $scope
SET c += $props
RETURN c {.*} AS c
