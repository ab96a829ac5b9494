// params: scope, as_of, after_id, limit
// One page of the person bindings believed at $as_of, in id order after the keyset cursor
// ($after_id, '' for none), read in the order of the (scope, id) index and cut at $limit.
MATCH (v:PersonBindingVersion)
USING INDEX SEEK v:PersonBindingVersion(scope, id)
WHERE v.scope = $scope AND v.id > $after_id
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
WITH v ORDER BY v.scope, v.id LIMIT $limit
RETURN v {.*} AS v
