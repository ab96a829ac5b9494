// params: id, scope, now
// Unbind: the current version of one binding is retracted at $now (its history stays).
MATCH (v:PersonBindingVersion)
WHERE v.id = $id AND v.retracted_at > $now AND v.scope = $scope
SET v.retracted_at = $now
RETURN v {.*} AS v
