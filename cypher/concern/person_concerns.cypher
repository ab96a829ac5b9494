// params: scope, person_id
// build_person_context_slice(person_id, "concern"): the live concerns a person takes part in.
MATCH (p:Person {scope: $scope, person_id: $person_id})<-[r:INVOLVES]-(c:Concern)
WHERE NOT c.status IN ['resolved', 'dropped']
RETURN c.doc AS doc, r.comm_status AS comm_status, r.role_in_concern AS role_in_concern
ORDER BY c.created_at, c.concern_id
