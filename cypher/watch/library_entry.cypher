// params: library_id, document_id
MATCH (e:LibraryEntry {library_id: $library_id, document_id: $document_id})
OPTIONAL MATCH (s:Source {scope: e.scope, id: e.document_id})
RETURN e {.*} AS e, s.title AS title
