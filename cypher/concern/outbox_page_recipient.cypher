// params: scope, person_id, statuses, after_deliver_at, after_seq, after_key, limit
// concernMessages: every message addressed to one person (e.g. what the boss received), in
// delivery order, keyset-paged after (deliver_at, seq, key).
MATCH (o:OutboxMessage)
WHERE o.scope = $scope AND o.recipient_person_id = $person_id
  AND ($statuses IS NULL OR o.status IN $statuses)
  AND ($after_deliver_at IS NULL
       OR o.deliver_at > $after_deliver_at
       OR (o.deliver_at = $after_deliver_at
           AND (o.seq > $after_seq OR (o.seq = $after_seq AND o.key > $after_key))))
RETURN o {.*} AS row
ORDER BY o.deliver_at, o.seq, o.key
LIMIT $limit
