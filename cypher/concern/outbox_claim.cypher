// params: key, worker_id, now, stale_before
// Claim one row for sending; a crashed sender's claim lapses after the lease.
MATCH (o:OutboxMessage {key: $key})
WHERE o.status = 'pending' OR (o.status = 'sending' AND o.claimed_at < $stale_before)
SET o.status = 'sending', o.claimed_by = $worker_id, o.claimed_at = $now,
    o.attempts = o.attempts + 1
RETURN o {.*} AS row
