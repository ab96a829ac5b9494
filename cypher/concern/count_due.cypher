// params: now
// The plain count over the due scan's index (the benchmark's baseline).
MATCH (c:Concern)
USING INDEX SEEK c:Concern(status, next_action_when, type, scope, concern_id)
WHERE c.status IN ['pending', 'in_progress', 'escalated'] AND c.next_action_when <= $now
  AND c.type IS NOT NULL AND c.scope IS NOT NULL AND c.concern_id IS NOT NULL
RETURN count(c) AS n
