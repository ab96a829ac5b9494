// params: scope, rows, at
// Close verified items on the observation that verified them (docs/rules/watches.md).
UNWIND $rows AS row
MATCH (w:Watch {id: row.watch_id})
WHERE w.scope = $scope
SET w.closed_observation_id = row.observation_id, w.closed_at = $at
RETURN count(w) AS closed
