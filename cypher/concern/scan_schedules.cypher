// params: now, scope, limit
// seed 002 §十 scan_schedules(): schedule concerns whose trigger.next_run_at is due.
MATCH (c:Concern)
USING INDEX c:Concern(next_run_at)
WHERE c.next_run_at <= $now AND c.type = 'schedule'
  AND NOT c.status IN ['resolved', 'dropped'] AND ($scope IS NULL OR c.scope = $scope)
RETURN c.doc AS doc
ORDER BY c.next_run_at, c.concern_id
LIMIT $limit
