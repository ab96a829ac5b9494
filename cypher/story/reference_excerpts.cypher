// params: scope, ids
// Reference.excerpt for many references at once (one DataLoader batch per request).
UNWIND $ids AS rid
MATCH (r:Reference {id: rid})
WHERE r.scope = $scope
OPTIONAL MATCH (v:SourceVersion {scope: r.scope, source_id: r.source_id, version: r.source_version})
RETURN r {.*} AS r, v {.*} AS v
