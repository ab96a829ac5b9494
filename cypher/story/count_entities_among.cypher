// params: scope, as_of, ids, kind, status, name_contains
// How many entities page_entities_among pages through.
UNWIND $ids AS id
MATCH (v:EntityVersion)
WHERE v.id = id AND v.scope = $scope
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($kind IS NULL OR v.kind = $kind)
  AND ($status IS NULL OR v.status = $status)
  AND ($name_contains IS NULL OR toLower(v.name) CONTAINS $name_contains)
RETURN count(v) AS n
