// params: scope, statuses
// The inbox's badges for stopped supervision runs: a scope's failed and paused runs counted
// per status (index: SupervisionRun(scope, status, updated_at), migration 092).
MATCH (r:SupervisionRun)
USING INDEX r:SupervisionRun(scope, status, updated_at)
WHERE r.scope = $scope AND r.status IN $statuses AND r.updated_at IS NOT NULL
  AND r.stopped = true  // still stopping (pausing): not yet waiting for anyone
RETURN r.status AS kind, count(r) AS n
