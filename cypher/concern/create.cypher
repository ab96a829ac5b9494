// params: c, people
// Create a concern (raiseConcern) with its person refs; the unique concern_id guards twins.
CREATE (n:Concern)
SET n = $c
WITH n
CALL (n) {
  UNWIND $people AS p
  MERGE (person:Person {scope: n.scope, person_id: p.person_id})
    ON CREATE SET person.display_name = p.display_name, person.created_at = n.created_at
  MERGE (n)-[r:INVOLVES]->(person)
  SET r.role_in_concern = p.role_in_concern, r.comm_status = p.comm_status,
      r.last_channel = p.last_channel
}
RETURN n.revision AS revision
