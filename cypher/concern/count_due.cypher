// params: now
// The plain count over the scan's index (the benchmark's baseline).
MATCH (c:Concern)
USING INDEX c:Concern(status, next_action_when)
WHERE c.status IN ['pending', 'in_progress', 'escalated'] AND c.next_action_when <= $now
RETURN count(c) AS n
