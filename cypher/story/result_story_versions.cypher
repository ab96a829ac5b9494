// params: scope, result_id
// Story versions written by one result (its graph delta).
MATCH (v:StoryVersion)
WHERE v.via_result = $result_id AND v.scope = $scope
RETURN v {.*} AS v
ORDER BY v.id, v.seq
