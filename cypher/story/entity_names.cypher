// params: scope, as_of, ids
// The names of the entities $ids believed at $as_of (a relation page's endpoints), by id.
UNWIND $ids AS id
MATCH (v:EntityVersion)
USING INDEX SEEK v:EntityVersion(id, retracted_at)
WHERE v.id = id AND v.retracted_at > $as_of AND v.recorded_at <= $as_of AND v.scope = $scope
RETURN v.id AS id, v.name AS name
