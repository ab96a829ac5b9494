// params: scope
// Every change (event -> entity, recorded once) of a scope (graph view replay):
// [id, event_id, entity_id, kind, recorded_ms].
MATCH (n:Change)
WHERE n.scope = $scope AND n.recorded_at IS NOT NULL
RETURN collect([n.id, n.event_id, n.entity_id, n.kind, n.recorded_at.epochMillis]) AS rows
