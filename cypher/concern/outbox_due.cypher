// params: now, scope, concern_id, limit
// Pending outbox rows whose delivery time has come (deferred reports included).
MATCH (o:OutboxMessage)
USING INDEX o:OutboxMessage(status, deliver_at)
WHERE o.status = 'pending' AND o.deliver_at <= $now
  AND ($scope IS NULL OR o.scope = $scope)
  AND ($concern_id IS NULL OR o.concern_id = $concern_id)
RETURN o {.*} AS row
ORDER BY o.deliver_at, o.seq
LIMIT $limit
