// params: scope, items
// The evidence each inbox suggestion cites ($items: {id, target, result}): the references it
// owns (a pending difference's), and its target's references written by the result that
// proposed it (a field suggestion's). Index: Reference(owner_id).
UNWIND $items AS p
CALL {
  WITH p
  MATCH (r:Reference)
  WHERE r.owner_id = p.id AND r.scope = $scope
  RETURN r
  UNION
  WITH p
  MATCH (r:Reference)
  WHERE r.owner_id = p.target AND r.scope = $scope AND r.result_id = p.result
  RETURN r
}
RETURN p.id AS sid, r {.*} AS r
ORDER BY sid, r.recorded_at, r.locator, r.id
