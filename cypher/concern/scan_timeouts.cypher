// params: now, scope, limit
// seed 002 §十 scan_timeouts(): waiting_reply past its deadline -> the agent loop (v3.0).
MATCH (c:Concern)
USING INDEX c:Concern(status, next_action_when)
WHERE c.status = 'waiting_reply' AND c.next_action_when <= $now
  AND c.type <> 'schedule' AND ($scope IS NULL OR c.scope = $scope)
RETURN c.doc AS doc
ORDER BY c.next_action_when, c.concern_id
LIMIT $limit
