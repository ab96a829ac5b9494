// params: row
// Record one new agenda policy version; two saves of the same version clash on the
// (scope, version) constraint and the later one writes nothing (CONFLICT).
CREATE (p:AgendaPolicyVersion)
SET p = $row
RETURN p.version AS version
