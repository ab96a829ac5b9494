// params: scope, target_id, forever
// The pending DIFFERENCE suggestions about one object, current, by the suggestion target
// index, newest first: the one a difference signal stands for is picked among them
// (engine/signal/outcome.suggestion_for).
MATCH (v:SuggestionVersion {target_id: $target_id})
WHERE v.scope = $scope AND v.retracted_at = $forever AND v.status = 'pending'
  AND v.kind = 'difference'
RETURN v {.*} AS v
ORDER BY v.recorded_at DESC, v.id
