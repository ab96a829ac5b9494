// params: stale_before, now, limit
// Outbox rows whose sender claimed them and never finished (a crashed worker): back to
// pending so the next delivery sends them (same Idempotency-Key, at least once). The first
// SET takes the row's write lock and the status is tested again after it, so two
// reconcilers never both release one row.
MATCH (o:OutboxMessage)
USING INDEX SEEK o:OutboxMessage(status, deliver_at)
WHERE o.status = 'sending' AND o.deliver_at IS NOT NULL AND o.claimed_at < $stale_before
WITH o LIMIT $limit
SET o.claim_lock = true
WITH o
WHERE o.status = 'sending' AND o.claimed_at < $stale_before
SET o.status = 'pending', o.released_at = $now, o.releases = coalesce(o.releases, 0) + 1
REMOVE o.claim_lock
RETURN o.key AS key, o.concern_id AS concern_id, o.claimed_by AS claimed_by
