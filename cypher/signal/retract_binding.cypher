// params: id, scope, now, by
// Unbind: the current version of one binding is retracted at $now by $by (the token's
// name), its history stays.
MATCH (v:PersonBindingVersion)
WHERE v.id = $id AND v.retracted_at > $now AND v.scope = $scope
SET v.retracted_at = $now, v.retracted_by = $by
RETURN v {.*} AS v
