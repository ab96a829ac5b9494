// params: scope, watch_id, limit
MATCH (r:WatchRun {watch_id: $watch_id})
WHERE r.scope = $scope
RETURN r {.*} AS r
ORDER BY r.started_at DESC
LIMIT $limit
