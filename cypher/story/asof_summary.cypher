// params: scope, as_of
// Summarys are recorded once; those recorded at or before $as_of.
MATCH (n:Summary)
WHERE n.scope = $scope AND n.recorded_at <= $as_of
RETURN n {.*} AS n
