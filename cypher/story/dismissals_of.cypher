// params: scope, pairs
// The remembered dismissals of the proposals a publish is about to make ($pairs: {target,
// field}), by target (index: Dismissal(target_id)).
UNWIND $pairs AS p
MATCH (d:Dismissal)
WHERE d.target_id = p.target AND d.scope = $scope AND d.field = p.field
RETURN d {.*} AS d
ORDER BY d.dismissed_at, d.fingerprint
