// params: scope, as_of, lower, upper, after_id, story_id, limit
// One page of the events believed at $as_of with $lower <= at <= $upper, in (at, id) order
// after the keyset cursor: $lower is the later of `from` and the cursor's `at`, and
// $after_id ('' for none) skips what the cursor already returned at that very `at`. Read in
// the order of the (scope, at, id) index and cut at $limit.
MATCH (v:EventVersion)
USING INDEX SEEK v:EventVersion(scope, at, id)
WHERE v.scope = $scope AND v.at >= $lower AND v.at <= $upper AND v.id IS NOT NULL
  AND CASE WHEN v.at = $lower THEN v.id > $after_id ELSE true END
  AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  AND ($story_id IS NULL OR v.story_id = $story_id)
// ORDER BY names the index's leading property too: the planner then reads in index order
// (Limit, no Top over the whole scope).
WITH v ORDER BY v.scope, v.at, v.id LIMIT $limit
// One record, the page in that order (collect keeps it): the Python driver's cost is per
// record (~50 µs each), not per row of a list.
RETURN collect(v {.*,
                  recorded_at: v.recorded_at.epochMillis * 1000 + v.recorded_at.microsecond % 1000,
                  retracted_at: v.retracted_at.epochMillis * 1000 + v.retracted_at.microsecond % 1000,
                  at: v.at.epochMillis * 1000 + v.at.microsecond % 1000}) AS page
