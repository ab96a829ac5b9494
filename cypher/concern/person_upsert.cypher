// params: scope, person
// Person master data (display name, preferred channel, channels, owner flag).
MERGE (p:Person {scope: $scope, person_id: $person.person_id})
SET p += $person
RETURN p {.*} AS person
