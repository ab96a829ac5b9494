// params: scope, person_id, statuses
// totalCount of concernMessages: the same filter as outbox_page_recipient, only when selected.
MATCH (o:OutboxMessage)
WHERE o.scope = $scope AND o.recipient_person_id = $person_id
  AND ($statuses IS NULL OR o.status IN $statuses)
RETURN count(o) AS total
