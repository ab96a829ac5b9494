// params: concern_id
// One loop turn's input: the concern and the person slices of everyone it involves,
// plus the scope's owner (老板) for heartbeat back-flow (docs/rules/concerns.md).
MATCH (c:Concern {concern_id: $concern_id})
OPTIONAL MATCH (c)-[:INVOLVES]->(p:Person)
WITH c, collect(p {.*}) AS people
OPTIONAL MATCH (o:Person {scope: c.scope, is_owner: true})
RETURN c.doc AS doc, c.scope AS scope, people, collect(o {.*})[0] AS owner
