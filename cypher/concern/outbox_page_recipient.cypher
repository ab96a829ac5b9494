// params: scope, person_id, statuses, after_deliver_at, after_seq, after_key, limit
// concernMessages: every message addressed to one person (e.g. what the boss received), in
// delivery order, keyset-paged after (deliver_at, seq, key). The page walks
// OutboxMessage(scope, recipient_person_id, deliver_at) in order from the cursor and stops at
// `limit` (plus the rows the status filter skips): its cost grows with the page, not with
// the person's messages (the ORDER BY names the equality keys so the planner takes the
// index's order).
MATCH (o:OutboxMessage)
USING INDEX SEEK o:OutboxMessage(scope, recipient_person_id, deliver_at)
WHERE o.scope = $scope AND o.recipient_person_id = $person_id
  AND o.deliver_at >= coalesce($after_deliver_at, datetime('-999999999-01-01T00:00:00Z'))
  AND ($statuses IS NULL OR o.status IN $statuses)
  AND ($after_deliver_at IS NULL
       OR o.deliver_at > $after_deliver_at
       OR (o.deliver_at = $after_deliver_at
           AND (o.seq > $after_seq OR (o.seq = $after_seq AND o.key > $after_key))))
RETURN o {.*} AS row
ORDER BY o.scope, o.recipient_person_id, o.deliver_at, o.seq, o.key
LIMIT $limit
