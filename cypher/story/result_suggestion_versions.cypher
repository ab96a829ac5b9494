// params: scope, result_id
// Suggestion versions written by one result (its graph delta).
MATCH (v:SuggestionVersion)
WHERE v.via_result = $result_id AND v.scope = $scope
RETURN v {.*} AS v
ORDER BY v.id, v.seq
