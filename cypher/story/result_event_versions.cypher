// params: scope, result_id
// Event versions written by one result (its graph delta).
MATCH (v:EventVersion)
WHERE v.via_result = $result_id AND v.scope = $scope
RETURN v {.*} AS v
ORDER BY v.id, v.seq
