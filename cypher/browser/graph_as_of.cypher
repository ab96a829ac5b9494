// The graph of a scope as known at a past moment (GraphQL storyGraph(asOf:)): the versions
// with recorded_at <= as_of < retracted_at. Each entity is drawn with the version believed
// then (Entity)-[:VERSION]->(EntityVersion), whose `name` may differ from today's caption.
// Pasted as it is, it draws the demo; edit the values on the WITH line to look elsewhere.
WITH 'demo' AS scope, datetime('2026-03-17T05:00:00Z') AS as_of
MATCH (v:EntityVersion)
WHERE v.scope = scope AND v.recorded_at <= as_of AND v.retracted_at > as_of
MATCH version = (e:Entity {id: v.id})-[:VERSION]->(v)
OPTIONAL MATCH (rv:RelationVersion)
  WHERE rv.from_id = v.id AND rv.retracted_at > as_of AND rv.recorded_at <= as_of
    AND rv.removed = false
OPTIONAL MATCH rel = (e)<-[:FROM]-(:Relation {id: rv.id})-[:TO]->(:Entity)
RETURN version, v.name AS name_then, rel, rv.type AS type_then, rv.confirmation AS confirmation_then
