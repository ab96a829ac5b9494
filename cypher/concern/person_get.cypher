// params: scope, person_id
// resolve_person_context(person_id): the person's master data (docs/rules/concerns.md).
MATCH (p:Person {scope: $scope, person_id: $person_id})
RETURN p {.*} AS person
