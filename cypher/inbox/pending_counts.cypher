// params: scope, forever
// The inbox's badges: a scope's pending suggestions counted per kind (index: the current
// suggestion versions of a scope).
MATCH (v:SuggestionVersion)
USING INDEX v:SuggestionVersion(scope, retracted_at)
WHERE v.scope = $scope AND v.retracted_at = $forever AND v.status = 'pending'
RETURN v.kind AS kind, count(v) AS n
