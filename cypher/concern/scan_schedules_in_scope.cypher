// params: now, scope, limit
// The scan of one scope (`scan_schedules` is every scope's): the scope leads the index seek.
// docs/rules/concerns.md scan_schedules(): schedule concerns whose trigger.next_run_at is due.
// Every property read is held by the index (the IS NOT NULL predicates let the planner take
// the values from it): no concern node is read. Ids and due instants (epoch µs) come back
// as two lists in one record; the caller builds each item's trigger and job id.
MATCH (c:Concern)
USING INDEX SEEK c:Concern(scope, type, next_run_at, status, concern_id)
WHERE c.scope = $scope AND c.type = 'schedule' AND c.next_run_at <= $now
  AND c.status IS NOT NULL AND c.concern_id IS NOT NULL
  AND NOT c.status IN ['resolved', 'dropped']
WITH c.concern_id AS id, c.next_run_at AS due
ORDER BY due, id
LIMIT $limit
RETURN collect(id) AS ids, collect(due.epochMillis * 1000 + due.microsecond % 1000) AS due
