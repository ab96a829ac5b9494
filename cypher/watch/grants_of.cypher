// params: scope, watch_id
// Every grant record of a watch, revoked ones included (recovery filters them).
MATCH (g:WatchGrant {watch_id: $watch_id})
WHERE g.scope = $scope
RETURN g {.*} AS g
ORDER BY g.issued_at, g.id
