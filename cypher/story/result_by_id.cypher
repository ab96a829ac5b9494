// params: scope, id
MATCH (r:Result {id: $id})
WHERE r.scope = $scope
RETURN r {.*} AS r
