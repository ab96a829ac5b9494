// params: scope, watch_id, execution_key
MATCH (h:WatchHandOff {execution_key: $execution_key})
WHERE h.scope = $scope AND h.watch_id = $watch_id
RETURN h {.*} AS h
