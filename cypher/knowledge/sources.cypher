// params: scope, ids
// The sources of this scope among $ids (constraint: scope, id); another scope's finds nothing.
UNWIND $ids AS id
MATCH (s:Source {scope: $scope, id: id})
RETURN s {.*} AS s
