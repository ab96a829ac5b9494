// The graph of a scope as it is now: every entity with its relations (removed relations
// left out). "Current" is the version whose retracted_at is the sentinel
// 9999-12-31T00:00:00Z; identity nodes (Entity, Relation) carry the current name/type as
// their caption. Relations are nodes: (:Relation)-[:FROM]->(:Entity), -[:TO]->(:Entity).
// Pasted as it is, it draws the demo; edit the values on the WITH line to look elsewhere.
WITH 'demo' AS scope
MATCH (v:EntityVersion)
WHERE v.scope = scope AND v.retracted_at = datetime('9999-12-31T00:00:00Z')
MATCH (e:Entity {id: v.id})
OPTIONAL MATCH (rv:RelationVersion)
  WHERE rv.from_id = v.id AND rv.retracted_at = datetime('9999-12-31T00:00:00Z')
    AND rv.removed = false
OPTIONAL MATCH rel = (e)<-[:FROM]-(:Relation {id: rv.id})-[:TO]->(:Entity)
RETURN e, rel
