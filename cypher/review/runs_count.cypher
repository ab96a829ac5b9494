// params: deployment, scope_key, scopes
// How many runs `review/runs_list` lists under the same filters (asked only for totalCount).
MATCH (r:SupervisionRun {deployment: $deployment})
WHERE ($scope_key IS NULL OR r.scope_key = $scope_key)
  AND ($scopes IS NULL OR r.scope IN $scopes)
RETURN count(r) AS total
