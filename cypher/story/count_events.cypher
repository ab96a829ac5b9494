// params: scope, as_of, lower, upper, story_id
// How many events page_events pages through (totalCount, read only when asked for).
MATCH (v:EventVersion)
USING INDEX SEEK v:EventVersion(scope, at)
WHERE v.scope = $scope AND v.at >= $lower AND v.at <= $upper
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($story_id IS NULL OR v.story_id = $story_id)
RETURN count(v) AS n
