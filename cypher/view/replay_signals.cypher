// params: scope
// Every signal version of a scope as a compact row (graph view replay):
// [id, seq, kind, status, text, due_ms, decision_kind, decision_concern_id, decision_reason,
//  recorded_ms, retracted_ms, by, who, what, via_concern] (index: scope, recorded_at).
MATCH (v:SignalVersion)
WHERE v.scope = $scope AND v.recorded_at IS NOT NULL
RETURN collect([v.id, v.seq, v.kind, v.status, v.text, v.due.epochMillis, v.decision_kind,
                v.decision_concern_id, v.decision_reason, v.recorded_at.epochMillis,
                v.retracted_at.epochMillis, v.by, v.who, v.what, v.via_concern]) AS rows
