// params: scope, forever
// The inbox's badges: a scope's pending suggestions counted per kind (index: the pending
// current suggestion versions of a scope, migration 092).
MATCH (v:SuggestionVersion)
USING INDEX v:SuggestionVersion(scope, status, retracted_at, recorded_at)
WHERE v.scope = $scope AND v.status = 'pending' AND v.retracted_at = $forever
  AND v.recorded_at IS NOT NULL
RETURN v.kind AS kind, count(v) AS n
