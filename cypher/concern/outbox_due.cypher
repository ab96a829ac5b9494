// params: now, scope, concern_id, live, dead_before, limit
// Outbox rows whose delivery time has come (deferred reports included): pending ones, and,
// when the live workers are known ($live not null), rows left `sending` by a worker that is
// no longer alive (a claim older than $dead_before): it was killed between its claim and
// its bookkeeping.
MATCH (o:OutboxMessage)
USING INDEX SEEK o:OutboxMessage(status, deliver_at)
WHERE o.status IN ['pending', 'sending'] AND o.deliver_at <= $now
  AND (o.status = 'pending'
       OR ($live IS NOT NULL AND NOT o.claimed_by IN $live AND o.claimed_at < $dead_before))
  AND ($scope IS NULL OR o.scope = $scope)
  AND ($concern_id IS NULL OR o.concern_id = $concern_id)
RETURN o {.*} AS row
ORDER BY o.deliver_at, o.seq
LIMIT $limit
