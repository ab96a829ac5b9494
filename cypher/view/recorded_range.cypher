// params: scope
// First and last record time of results in a scope (the graph view's replay slider).
MATCH (r:Result {scope: $scope})
RETURN min(r.recorded_at) AS first, max(r.recorded_at) AS last
