// params: moves, now
// Pending outbox rows moved to a new delivery time (a priority change moved the sending
// window); `moves` is [{key, deliver_at}].
UNWIND $moves AS move
MATCH (o:OutboxMessage {key: move.key})
WHERE o.status = 'pending'
SET o.deliver_at = move.deliver_at, o.rescheduled_at = $now
RETURN count(o) AS n
