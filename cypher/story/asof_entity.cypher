// params: scope, as_of
// Entity versions believed at $as_of: recorded_at <= as_of < retracted_at (index: scope, recorded_at).
MATCH (v:EntityVersion)
WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
RETURN v {.*} AS v
