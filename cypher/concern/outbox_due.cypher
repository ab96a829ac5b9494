// params: now, scope, concern_id, key, live, dead_before, limit
// Outbox rows whose delivery time has come (deferred reports included): pending ones, and,
// when the live workers are known ($live not null), rows left `sending` by a worker that is
// no longer alive (a claim older than $dead_before): it was killed between its claim and
// its bookkeeping. A mid-course report of a closed concern is never due (docs/rules/concerns.md: the
// back-flow is the last word; the closing decision also marks them superseded).
MATCH (o:OutboxMessage)
USING INDEX SEEK o:OutboxMessage(status, deliver_at)
WHERE o.status IN ['pending', 'sending'] AND o.deliver_at <= $now
  AND (o.status = 'pending'
       OR ($live IS NOT NULL AND NOT o.claimed_by IN $live AND o.claimed_at < $dead_before))
  AND ($scope IS NULL OR o.scope = $scope)
  AND ($concern_id IS NULL OR o.concern_id = $concern_id)
  AND ($key IS NULL OR o.key = $key)
  AND NOT (o.kind = 'report' AND NOT 'dropped' IN coalesce(o.report_kinds, [])
           AND EXISTS { MATCH (c:Concern {concern_id: o.concern_id})
                        WHERE c.status IN ['resolved', 'dropped'] })
RETURN o {.*} AS row
ORDER BY o.deliver_at, o.seq
LIMIT $limit
