// params: scope, session_id, limit
// The hand-offs addressed to one partner session, newest first (its MCP resource).
MATCH (h:WatchHandOff {session_id: $session_id})
WHERE h.scope = $scope
RETURN h {.*} AS h
ORDER BY h.created_at DESC, h.execution_key DESC
LIMIT $limit
