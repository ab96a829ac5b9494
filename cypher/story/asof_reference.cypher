// params: scope, as_of
// References are recorded once; those recorded at or before $as_of.
MATCH (n:Reference)
WHERE n.scope = $scope AND n.recorded_at <= $as_of
RETURN n {.*} AS n
