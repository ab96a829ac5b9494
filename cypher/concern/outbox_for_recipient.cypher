// params: scope, person_id, statuses
// Every message addressed to one person (e.g. what the boss received), in delivery order.
MATCH (o:OutboxMessage)
WHERE o.scope = $scope AND o.recipient_person_id = $person_id
  AND ($statuses IS NULL OR o.status IN $statuses)
RETURN o {.*} AS row
ORDER BY o.deliver_at, o.seq
