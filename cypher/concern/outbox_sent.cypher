// params: key, worker_id, now
MATCH (o:OutboxMessage {key: $key})
WHERE o.status = 'sending' AND o.claimed_by = $worker_id
SET o.status = 'sent', o.sent_at = $now, o.last_error = null
RETURN o.key AS key
