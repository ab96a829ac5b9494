// params: scope, person_id, day_start, day_end
// docs/rules/concerns.md daily cap: mid-course reports already scheduled for this recipient today.
MATCH (o:OutboxMessage)
WHERE o.scope = $scope AND o.recipient_person_id = $person_id
  AND o.deliver_at >= $day_start AND o.deliver_at < $day_end AND o.kind = 'report'
RETURN count(o) AS n
