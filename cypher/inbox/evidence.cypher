// params: scope, items
// The evidence each inbox suggestion cites ($items: {id, target, result, repeat_of}): the
// references it owns (a pending difference's), and its target's references written by the
// result that proposed it (a field suggestion's); for a suggestion back on new evidence
// (repeat_of a dismissed one), the dismissed one's evidence too.
// Index: Reference(owner_id); SuggestionVersion (id, seq).
UNWIND $items AS p
OPTIONAL MATCH (d:SuggestionVersion {id: p.repeat_of, seq: 1})
WITH p, [{id: p.id, target: p.target, result: p.result}] +
        CASE WHEN d IS NULL THEN [] ELSE [{id: d.id, target: d.target_id, result: d.result_id}] END
        AS owners
UNWIND owners AS o
CALL {
  WITH o
  MATCH (r:Reference)
  WHERE r.owner_id = o.id AND r.scope = $scope
  RETURN r
  UNION
  WITH o
  MATCH (r:Reference)
  WHERE r.owner_id = o.target AND r.scope = $scope AND r.result_id = o.result
  RETURN r
}
RETURN p.id AS sid, r {.*} AS r
ORDER BY sid, r.recorded_at, r.locator, r.id
