// params: scope, as_of, valid_at
// Event versions believed at $as_of (a whole scope; windows read story/window_graph); with
// $valid_at, only events that had happened by then (at <= T).
MATCH (v:EventVersion)
WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($valid_at IS NULL OR v.at <= $valid_at)
RETURN v {.*} AS v
