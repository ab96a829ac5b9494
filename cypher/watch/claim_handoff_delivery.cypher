// params: scope, execution_key, worker_id, now
// One delivery attempt of a hand-off: taken while pending, retrying, or left `sending` by a
// worker that died mid-attempt (sent again under the same Idempotency-Key). A delivered or
// dead-lettered hand-off is never taken again, so a repeat is never delivered twice.
MATCH (h:WatchHandOff {execution_key: $execution_key})
WHERE h.scope = $scope
  AND coalesce(h.delivery_status, 'pending') IN ['pending', 'sending', 'retrying']
SET h.delivery_status = 'sending',
    h.delivery_attempts = coalesce(h.delivery_attempts, 0) + 1,
    h.delivery_claimed_by = $worker_id,
    h.delivery_claimed_at = $now
RETURN h {.*} AS h
