// params: scope, keys, texts, forever
// Stored Main entities of one story scope that the review's texts name (docs/rules/reviews.md: 跨 run 仅允许
// 引用同 scope 的 Main 候选实体). `keys` are the texts' two-character windows: each is sought
// as a name prefix (index entity_version_name: scope, name), so the cost follows the text, not
// the scope. Earlier names of an entity count too (returned as `names`); only the current
// version's status, name and kind are returned.
UNWIND $keys AS key
MATCH (v:EntityVersion)
WHERE v.scope = $scope AND v.name STARTS WITH key
WITH DISTINCT v.id AS id, v.name AS name
WHERE any(t IN $texts WHERE t CONTAINS name)
MATCH (cur:EntityVersion {id: id})
WHERE cur.retracted_at = $forever AND cur.scope = $scope AND cur.status = 'main'
RETURN id, cur.name AS name, cur.kind AS kind, cur.description AS description,
       collect(DISTINCT name) AS names
