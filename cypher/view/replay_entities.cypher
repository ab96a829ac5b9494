// params: scope
// Every entity version of a scope as a compact row, for the graph view's client-side replay:
// [id, seq, name, kind, status, recorded_ms, retracted_ms, by, via_concern] (index: scope,
// recorded_at; via_concern: the concern whose answer wrote the version, ).
MATCH (v:EntityVersion)
WHERE v.scope = $scope AND v.recorded_at IS NOT NULL
RETURN collect([v.id, v.seq, v.name, v.kind, v.status,
                v.recorded_at.epochMillis, v.retracted_at.epochMillis, v.by, v.via_concern]) AS rows
