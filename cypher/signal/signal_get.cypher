// params: scope, id, now
// The current version of one signal (its decision and the effect it asks for).
MATCH (v:SignalVersion)
WHERE v.id = $id AND v.retracted_at > $now AND v.scope = $scope
RETURN v {.*} AS v
