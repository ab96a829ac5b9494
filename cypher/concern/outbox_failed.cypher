// params: key, worker_id, error
// A failed send leaves the row pending for the next attempt, with the error as it was.
MATCH (o:OutboxMessage {key: $key})
WHERE o.status = 'sending' AND o.claimed_by = $worker_id
SET o.status = 'pending', o.last_error = $error, o.claimed_by = null
RETURN o.key AS key
