// params: scope
// Every stage summary (recorded once) of a scope (graph view replay):
// [id, start_ms, end_ms, text, recorded_ms].
MATCH (n:Summary)
WHERE n.scope = $scope AND n.recorded_at IS NOT NULL
RETURN collect([n.id, n.interval_start.epochMillis, n.interval_end.epochMillis, n.text,
                n.recorded_at.epochMillis]) AS rows
