// params: scope, entity_id, now
// The current version of the entity an operator binds (its kind must say person).
MATCH (v:EntityVersion)
WHERE v.id = $entity_id AND v.retracted_at > $now AND v.scope = $scope
RETURN v.kind AS kind, v.name AS name
