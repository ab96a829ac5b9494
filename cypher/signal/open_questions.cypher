// params: scope, source_ids, forever
// The current versions of this scope's open QUESTION signals citing one of the given
// sources (a later review reads whether the person asked has answered them), found by the
// (scope, retracted_at) index of current versions.
MATCH (v:SignalVersion)
WHERE v.scope = $scope AND v.retracted_at = $forever
  AND v.kind = 'question' AND v.status = 'open' AND v.source_id IN $source_ids
RETURN v {.*} AS v
