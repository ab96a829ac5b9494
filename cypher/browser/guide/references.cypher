// Where 张三's statements came from: each reference and the source version it points at.
WITH 'demo' AS scope, 'ent_acaea0b5acde2a4e90551845' AS entity_id
MATCH (r:Reference)
WHERE r.owner_id = entity_id AND r.scope = scope
MATCH (s:SourceVersion {scope: r.scope, source_id: r.source_id, version: r.source_version})
RETURN r.locator AS locator, s.source_id AS source, s.version AS version, r, s
