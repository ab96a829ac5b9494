// params: now, limit
// docs/rules/concerns.md scan_timeouts(): waiting_reply past its deadline -> the agent loop (v3.0).
// Every property read is held by the index (the IS NOT NULL predicates let the planner take
// the values from it): no concern node is read. Ids and due instants (epoch µs) come back
// as two lists in one record; the caller builds each item's trigger and job id.
MATCH (c:Concern)
USING INDEX SEEK c:Concern(status, next_action_when, type, scope, concern_id)
WHERE c.status = 'waiting_reply' AND c.next_action_when <= $now
  AND c.type IS NOT NULL AND c.scope IS NOT NULL AND c.concern_id IS NOT NULL
  AND c.type <> 'schedule'
WITH c.concern_id AS id, c.next_action_when AS due
ORDER BY due, id
LIMIT $limit
RETURN collect(id) AS ids, collect(due.epochMillis * 1000 + due.microsecond % 1000) AS due
