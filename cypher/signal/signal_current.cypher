// params: scope, id, forever
// The current version of one signal of this scope (found by the version-id index), read
// inside the transaction that writes what its concern's answer says.
MATCH (v:SignalVersion {id: $id})
WHERE v.scope = $scope AND v.retracted_at = $forever
RETURN v {.*} AS v
