// Library entries are keyed by scope (issue 11): a project placing (library, document) makes
// its own entry and can no longer re-point another project's. Reads name the scopes they may
// use.
DROP CONSTRAINT library_entry_key IF EXISTS;
CREATE CONSTRAINT library_entry_scope_key IF NOT EXISTS
FOR (e:LibraryEntry) REQUIRE (e.scope, e.library_id, e.document_id) IS UNIQUE;
