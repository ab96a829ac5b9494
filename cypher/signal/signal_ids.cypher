// params: scope, ids
// Which of the given signal ids this scope already holds (a repeated review records none again).
MATCH (n:Signal)
WHERE n.id IN $ids AND n.scope = $scope
RETURN n.id AS id
