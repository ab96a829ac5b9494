// params: now, scope, limit
// seed 002 §十 scan_due_concerns(): next_action.when due, not waiting for a reply.
MATCH (c:Concern)
USING INDEX c:Concern(status, next_action_when)
WHERE c.status IN ['pending', 'in_progress', 'escalated'] AND c.next_action_when <= $now
  AND c.type <> 'schedule' AND ($scope IS NULL OR c.scope = $scope)
RETURN c.doc AS doc
ORDER BY c.next_action_when, c.concern_id
LIMIT $limit
