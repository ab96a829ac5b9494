// params: scope, as_of, valid_at
// Relation versions believed at $as_of: recorded_at <= as_of < retracted_at (index: scope, recorded_at);
// with $valid_at, only those that held in the world then (valid_from <= T < valid_to, open ends).
MATCH (v:RelationVersion)
WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($valid_at IS NULL
       OR ((v.valid_from IS NULL OR v.valid_from <= $valid_at)
           AND (v.valid_to IS NULL OR v.valid_to > $valid_at)))
RETURN v {.*} AS v
