// params: scope, person_id, key_prefix
// The latest delivery time of the reports to one recipient whose key starts with
// $key_prefix (the agenda's own reports, `signal-report:`): the 30-minute gap between two
// reports applies to them as to a concern's. Index: outbox_recipient (scope, person, time).
MATCH (o:OutboxMessage)
WHERE o.scope = $scope AND o.recipient_person_id = $person_id AND o.kind = 'report'
  AND o.key STARTS WITH $key_prefix
RETURN max(o.deliver_at) AS at
