// params: row
// The record of one deleteScope: which scope, who, when, how many nodes. It keeps the scope
// as `deleted_scope` (not `scope`), so it belongs to no scope and survives a later delete.
CREATE (d:ScopeDeletion)
SET d = $row
RETURN d.id AS id
