// params: scope, person_ids
// resolve_person_context for several people at once (raise time, initiators not involved).
UNWIND $person_ids AS pid
MATCH (p:Person {scope: $scope, person_id: pid})
RETURN p {.*} AS person
