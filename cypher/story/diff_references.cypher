// params: scope, pairs
// The references a page of diff entries cites: for each {owner, result}, the references of
// that object written by that result (index: Reference(owner_id)).
UNWIND $pairs AS p
MATCH (r:Reference)
WHERE r.owner_id = p.owner AND r.scope = $scope AND r.result_id = p.result
RETURN r {.*} AS r
ORDER BY r.owner_id, r.locator, r.id
