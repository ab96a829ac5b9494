// params: scope, execution_key, props
// The outcome of one delivery attempt (delivered, retrying with its next time, or dead).
MATCH (h:WatchHandOff {execution_key: $execution_key})
WHERE h.scope = $scope
SET h += $props
RETURN h {.*} AS h
