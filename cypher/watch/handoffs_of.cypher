// params: scope, watch_id
MATCH (h:WatchHandOff {watch_id: $watch_id})
WHERE h.scope = $scope
RETURN h {.*} AS h
ORDER BY h.created_at, h.execution_key
