// params: scope, as_of, from_time, to_time, story_id
// Event versions believed at $as_of, bounded by `at` and story when given.
MATCH (v:EventVersion)
WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($from_time IS NULL OR v.at >= $from_time)
  AND ($to_time IS NULL OR v.at <= $to_time)
  AND ($story_id IS NULL OR v.story_id = $story_id)
RETURN v {.*} AS v
