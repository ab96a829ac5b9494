// params: scope, as_of, ids, after_name, after_id, kind, status, name_contains, limit
// page_entities restricted to the entity ids of a story (story_entity_ids): read by id.
UNWIND $ids AS id
MATCH (v:EntityVersion)
WHERE v.id = id AND v.scope = $scope
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND (v.name > $after_name OR (v.name = $after_name AND v.id > $after_id))
  AND ($kind IS NULL OR v.kind = $kind)
  AND ($status IS NULL OR v.status = $status)
  AND ($name_contains IS NULL OR toLower(v.name) CONTAINS $name_contains)
WITH v ORDER BY v.name, v.id LIMIT $limit
// One record, the page in that order (collect keeps it): the Python driver's cost is per
// record (~50 µs each), not per row of a list.
RETURN collect(v {.*,
                  recorded_at: v.recorded_at.epochMillis * 1000 + v.recorded_at.microsecond % 1000,
                  retracted_at: v.retracted_at.epochMillis * 1000 + v.retracted_at.microsecond % 1000,
                  valid_from: v.valid_from.epochMillis * 1000 + v.valid_from.microsecond % 1000,
                  valid_to: v.valid_to.epochMillis * 1000 + v.valid_to.microsecond % 1000}) AS page
