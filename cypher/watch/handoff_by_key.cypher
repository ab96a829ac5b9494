// params: scope, execution_key
MATCH (h:WatchHandOff {execution_key: $execution_key})
WHERE h.scope = $scope
RETURN h {.*} AS h
