// params: scope, limit
// The latest embed runs of one scope, newest first (the backfill command prints them).
MATCH (r:EmbedRun) WHERE r.scope = $scope AND r.started_at IS NOT NULL
WITH r ORDER BY r.started_at DESC LIMIT $limit
RETURN r {.*} AS run
