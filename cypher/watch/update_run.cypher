// params: scope, id, props
MATCH (r:WatchRun {id: $id})
WHERE r.scope = $scope
SET r += $props
RETURN r {.*} AS r
