// Every version of one entity, oldest first: what it said, who wrote it (`by`: user:<id> or
// run:<id>), why, the result that wrote it, and when it was superseded (retracted_at; the
// sentinel 9999-12-31T00:00:00Z means it is the current one). Nothing is edited in place.
// Find an id with the current_graph query (click an Entity node: its `id`).
// Pasted as it is, it draws the demo; edit the values on the WITH line to look elsewhere.
WITH 'demo' AS scope, 'ent_acaea0b5acde2a4e90551845' AS entity_id  // the demo's 张三
MATCH (v:EntityVersion)
WHERE v.id = entity_id AND v.scope = scope
MATCH p = (:Entity {id: v.id})-[:VERSION]->(v)
RETURN p, v.seq AS seq, v.name AS name, v.description AS description, v.status AS status,
       v.by AS by, v.why AS why, v.via_result AS result, v.recorded_at AS recorded_at,
       v.retracted_at AS retracted_at
ORDER BY seq
