// params: scope
MATCH (w:Watch)
WHERE w.scope = $scope
RETURN count(w) AS total
