// params: scope
// Every relation version of a scope as a compact row (graph view replay):
// [id, seq, from_id, to_id, type, confirmation, removed, recorded_ms, retracted_ms, by, via_concern]
// (by: `user:<id>` or `run:<id>`, who recorded the version).
MATCH (v:RelationVersion)
WHERE v.scope = $scope AND v.recorded_at IS NOT NULL
RETURN collect([v.id, v.seq, v.from_id, v.to_id, v.type, v.confirmation, v.removed,
                v.recorded_at.epochMillis, v.retracted_at.epochMillis, v.by, v.via_concern]) AS rows
