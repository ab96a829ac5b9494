// params: scope, execution_key
// Every receipt reported for one hand-off, oldest first.
MATCH (r:WatchReceipt {execution_key: $execution_key})
WHERE r.scope = $scope
RETURN r {.*} AS r
ORDER BY r.reported_at, r.id
