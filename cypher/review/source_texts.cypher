// params: scopes, keys
// The text of exactly the versions a batch cites (`keys`: [{source_id, version}]).
UNWIND $keys AS k
MATCH (v:SourceVersion {source_id: k.source_id, version: k.version})
WHERE v.scope IN $scopes
RETURN v.source_id AS source_id, v.version AS version, v.text AS text
