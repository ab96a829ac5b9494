// params: scope, id, props
MATCH (r:WatchRun {scope: $scope, id: $id})
SET r += $props
RETURN r {.*} AS r
