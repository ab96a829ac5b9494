// params: keys, now
// docs/rules/concerns.md: a closed concern's undelivered mid-course reports are never sent. Only a
// row still pending is superseded (one a sender already claimed goes out before the
// back-flow row, written in this same transaction, can be claimed).
UNWIND $keys AS key
MATCH (o:OutboxMessage {key: key})
WHERE o.status = 'pending'
SET o.status = 'superseded', o.superseded_at = $now
RETURN count(o) AS n
