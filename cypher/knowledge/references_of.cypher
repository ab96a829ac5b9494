// params: scope, as_of, owner_ids
// The references of the selected objects recorded by $as_of (index: Reference.owner_id).
UNWIND $owner_ids AS id
MATCH (n:Reference {owner_id: id})
WHERE n.scope = $scope AND n.recorded_at <= $as_of
RETURN n {.*} AS n
