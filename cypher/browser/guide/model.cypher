// The data model on the demo's 张三: identity node, its versions, its relations (as nodes).
WITH 'demo' AS scope, 'ent_acaea0b5acde2a4e90551845' AS entity_id
MATCH (e:Entity {id: entity_id})-[:VERSION]->(v:EntityVersion)
WHERE e.scope = scope
OPTIONAL MATCH rel = (e)<-[:FROM|TO]-(:Relation)-[:FROM|TO]->(:Entity)
RETURN e, v, rel
