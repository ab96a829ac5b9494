// params: scope, session_id, limit
// The hand-offs addressed to one partner session, newest first (its MCP resource). The
// created_at predicate lets the planner use the (session_id, created_at) index (a composite
// index needs a predicate on each of its properties).
MATCH (h:WatchHandOff)
WHERE h.session_id = $session_id AND h.created_at IS NOT NULL AND h.scope = $scope
RETURN h {.*} AS h
ORDER BY h.created_at DESC, h.execution_key DESC
LIMIT $limit
