// params: scope, as_of
// How many person bindings are believed at $as_of (a connection's totalCount, asked only).
MATCH (v:PersonBindingVersion)
USING INDEX SEEK v:PersonBindingVersion(scope, id)
WHERE v.scope = $scope AND v.id > ''
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
RETURN count(v) AS n
