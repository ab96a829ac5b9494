// params: scope, target_id
// Every version of the suggestions that concern one entity or relation.
MATCH (v:SuggestionVersion)
WHERE v.target_id = $target_id AND v.scope = $scope
RETURN v {.*} AS v
ORDER BY v.id, v.seq
