// params: scope, watch_id, limit
// Newest first; old observations without a step list have no workflow_checks property.
MATCH (o:WatchObservation {watch_id: $watch_id})
WHERE o.scope = $scope
RETURN o {.*} AS o
ORDER BY o.observed_at DESC, o.id DESC
LIMIT $limit
