// params: now, scope, limit
// seed 002 §十 scan_timeouts(): waiting_reply past its deadline -> the agent loop (v3.0).
// Indexed properties only, no document, as one record (a record per row costs the driver
// ~60 µs; lists in one record a fraction): the engine derives triggers from DueFacts.
MATCH (c:Concern)
USING INDEX c:Concern(status, next_action_when)
WHERE c.status = 'waiting_reply' AND c.next_action_when <= $now
  AND c.type <> 'schedule' AND ($scope IS NULL OR c.scope = $scope)
WITH c
ORDER BY c.next_action_when, c.concern_id
LIMIT $limit
RETURN collect([c.concern_id, c.type, c.status,
                c.next_action_when.epochSeconds * 1000000 + c.next_action_when.microsecond,
                c.next_run_at.epochSeconds * 1000000 + c.next_run_at.microsecond]) AS due
