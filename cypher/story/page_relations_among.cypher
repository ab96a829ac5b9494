// params: scope, as_of, ids, after_type, after_id, confirmation, include_removed, limit
// page_relations restricted to the relations among a story's entities (story_entity_ids).
UNWIND $ids AS id
MATCH (v:RelationVersion)
USING INDEX SEEK v:RelationVersion(from_id)
WHERE v.from_id = id AND v.scope = $scope AND v.to_id IN $ids
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND (v.type > $after_type OR (v.type = $after_type AND v.id > $after_id))
  AND ($confirmation IS NULL OR v.confirmation = $confirmation)
  AND ($include_removed OR NOT coalesce(v.removed, false))
WITH v ORDER BY v.type, v.id LIMIT $limit
// One record, the page in that order (collect keeps it): the Python driver's cost is per
// record (~50 µs each), not per row of a list.
RETURN collect(v {.*,
                  recorded_at: v.recorded_at.epochMillis * 1000 + v.recorded_at.microsecond % 1000,
                  retracted_at: v.retracted_at.epochMillis * 1000 + v.retracted_at.microsecond % 1000,
                  valid_from: v.valid_from.epochMillis * 1000 + v.valid_from.microsecond % 1000,
                  valid_to: v.valid_to.epochMillis * 1000 + v.valid_to.microsecond % 1000}) AS page
