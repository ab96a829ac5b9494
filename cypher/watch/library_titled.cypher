// params: library_ids, title
// Documents whose title equals the given one exactly: no trimming, no fuzzy recall.
MATCH (e:LibraryEntry)
WHERE e.library_id IN $library_ids
MATCH (s:Source {scope: e.scope, id: e.document_id})
WHERE s.title = $title
RETURN e {.*} AS e, s.title AS title
ORDER BY e.library_id, e.document_id
