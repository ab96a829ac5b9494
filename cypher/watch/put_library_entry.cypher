// params: entry
// A knowledge document's place in a library and its tags (reads check mounts and tag limits).
// Keyed by scope: each project's entry is its own.
MERGE (e:LibraryEntry {scope: $entry.scope, library_id: $entry.library_id,
                       document_id: $entry.document_id})
SET e += $entry
RETURN e {.*} AS e
