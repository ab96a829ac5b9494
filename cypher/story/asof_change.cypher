// params: scope, as_of
// Changes are recorded once; those recorded at or before $as_of.
MATCH (n:Change)
WHERE n.scope = $scope AND n.recorded_at <= $as_of
RETURN n {.*} AS n
