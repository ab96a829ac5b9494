// params: scope
// The scope's owner (老板): back-flow target of heartbeat concerns (docs/rules/concerns.md).
MATCH (o:Person {scope: $scope, is_owner: true})
RETURN o {.*} AS person
LIMIT 1
