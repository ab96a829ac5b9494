// params: row
// One organising result; the (scope, key) constraint makes a concurrent repeat fail.
CREATE (r:Result)
SET r = $row
RETURN r.id AS id
