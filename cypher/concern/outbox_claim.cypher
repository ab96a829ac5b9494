// params: key, worker_id, now, stale_before, dead_before, live
// Claim one row for sending; a crashed sender's claim lapses after the lease, or at once
// when the live workers are known ($live not null), its claimant is not among them and
// the claim is older than $dead_before (longer than a liveness key lives).
// The first SET takes the node's write lock, so the status test below reads the value the
// previous claimant committed: two workers never both claim one row.
MATCH (o:OutboxMessage {key: $key})
SET o.claim_lock = true
WITH o
WHERE o.status = 'pending'
   OR (o.status = 'sending'
       AND (o.claimed_at < $stale_before
            OR ($live IS NOT NULL AND NOT o.claimed_by IN $live AND o.claimed_at < $dead_before)))
SET o.status = 'sending', o.claimed_by = $worker_id, o.claimed_at = $now,
    o.attempts = o.attempts + 1
REMOVE o.claim_lock
RETURN o {.*} AS row
