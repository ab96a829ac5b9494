// params: now, scope, limit
// The scan of one scope (`scan_due` is every scope's): the scope leads the index seek.
// docs/rules/concerns.md scan_due_concerns(): next_action.when due, not waiting for a reply.
// Every property read is held by the index (the IS NOT NULL predicates let the planner take
// the values from it): no concern node is read. Ids and due instants (epoch µs) come back
// as two lists in one record; the caller builds each item's trigger and job id.
MATCH (c:Concern)
USING INDEX SEEK c:Concern(scope, status, next_action_when, type, concern_id)
WHERE c.scope = $scope AND c.status IN ['pending', 'in_progress', 'escalated']
  AND c.next_action_when <= $now
  AND c.type IS NOT NULL AND c.concern_id IS NOT NULL
  AND c.type <> 'schedule'
WITH c.concern_id AS id, c.next_action_when AS due
ORDER BY due, id
LIMIT $limit
RETURN collect(id) AS ids, collect(due.epochMillis * 1000 + due.microsecond % 1000) AS due
