// params: library_id, document_id, scopes
// The entries of a document in the scopes the reader may use (one per scope at most).
MATCH (e:LibraryEntry {library_id: $library_id, document_id: $document_id})
WHERE e.scope IN $scopes
OPTIONAL MATCH (s:Source {scope: e.scope, id: e.document_id})
RETURN e {.*} AS e, s.title AS title
ORDER BY e.scope
