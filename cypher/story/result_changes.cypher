// params: scope, result_id
MATCH (n:Change)
WHERE n.result_id = $result_id AND n.scope = $scope
RETURN n {.*} AS n
ORDER BY n.id
