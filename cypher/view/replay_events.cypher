// params: scope
// Every event version of a scope as a compact row (graph view replay):
// [id, seq, title, at_ms, story_id, recorded_ms, retracted_ms, by, via_concern] (via_concern:
// the concern whose answer wrote the version, ).
MATCH (v:EventVersion)
WHERE v.scope = $scope AND v.recorded_at IS NOT NULL
RETURN collect([v.id, v.seq, v.title, v.at.epochMillis, v.story_id,
                v.recorded_at.epochMillis, v.retracted_at.epochMillis, v.by, v.via_concern]) AS rows
