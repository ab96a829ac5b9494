// params: scope, as_of, ids
// The pending suggestions believed at $as_of about the objects $ids (one page's), read by
// target id: a page's suggestions cost what the page holds.
UNWIND $ids AS id
MATCH (v:SuggestionVersion {target_id: id})
USING INDEX SEEK v:SuggestionVersion(target_id)
WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND v.status = 'pending'
RETURN v {.*,
          recorded_at: v.recorded_at.epochMillis * 1000 + v.recorded_at.microsecond % 1000,
          retracted_at: v.retracted_at.epochMillis * 1000 + v.retracted_at.microsecond % 1000} AS v
ORDER BY v.id
