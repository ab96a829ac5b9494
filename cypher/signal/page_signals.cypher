// params: scope, as_of, kind, status, after_id, limit
// One page of the signals believed at $as_of, in id order after the keyset cursor ($after_id,
// '' for none), optionally of one kind and status; read in the order of the (scope, id)
// index and cut at $limit.
MATCH (v:SignalVersion)
USING INDEX SEEK v:SignalVersion(scope, id)
WHERE v.scope = $scope AND v.id > $after_id
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($kind IS NULL OR v.kind = $kind)
  AND ($status IS NULL OR v.status = $status)
WITH v ORDER BY v.scope, v.id LIMIT $limit
RETURN v {.*} AS v
