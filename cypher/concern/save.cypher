// params: concern_id, expected_revision, c, people
// Optimistic save: no row back means another writer moved the revision (CONFLICT). The
// first SET takes the node's write lock before the revision is compared, so of two turns
// that read the same revision only one saves (compared before the lock, both could).
MATCH (n:Concern {concern_id: $concern_id})
SET n.lock_seq = coalesce(n.lock_seq, 0) + 1
WITH n
WHERE n.revision = $expected_revision
SET n += $c
WITH n
CALL (n) {
  UNWIND $people AS p
  MERGE (person:Person {scope: n.scope, person_id: p.person_id})
    ON CREATE SET person.display_name = p.display_name, person.created_at = n.updated_at
  MERGE (n)-[r:INVOLVES]->(person)
  SET r.role_in_concern = p.role_in_concern, r.comm_status = p.comm_status,
      r.last_channel = p.last_channel
}
// the model calls (cost ledger) that decided this turn, written only when it saves
// include: model_calls
RETURN n.revision AS revision
