// params: scope, watch_id, limit
MATCH (c:WatchCheckpoint {watch_id: $watch_id})
WHERE c.scope = $scope
RETURN c {.*} AS c
ORDER BY c.recorded_at DESC, c.id DESC
LIMIT $limit
