// params: concern_id
MATCH (o:OutboxMessage {concern_id: $concern_id})
RETURN o {.*} AS row
ORDER BY o.deliver_at, o.seq
