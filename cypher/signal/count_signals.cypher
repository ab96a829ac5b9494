// params: scope, as_of, kind, status
// How many signals page_signals pages through (totalCount, read only when asked for).
MATCH (v:SignalVersion)
WHERE v.scope = $scope
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($kind IS NULL OR v.kind = $kind)
  AND ($status IS NULL OR v.status = $status)
RETURN count(v) AS n
