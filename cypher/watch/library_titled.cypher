// params: library_ids, title, scopes
// Documents whose title equals the given one exactly: no trimming, no fuzzy recall; only
// entries of the scopes the reader may use.
MATCH (e:LibraryEntry)
WHERE e.library_id IN $library_ids AND e.scope IN $scopes
MATCH (s:Source {scope: e.scope, id: e.document_id})
WHERE s.title = $title
RETURN e {.*} AS e, s.title AS title
ORDER BY e.library_id, e.document_id
