// params: scope, key
MATCH (r:Result {scope: $scope, key: $key})
RETURN r {.*} AS r
