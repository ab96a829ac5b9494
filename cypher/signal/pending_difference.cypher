// params: scope, target_id, field, proposed_value, forever
// The pending DIFFERENCE suggestion a difference signal stands for (the same target, field
// and proposed value), current, by the suggestion target index; newest first.
MATCH (v:SuggestionVersion {target_id: $target_id})
WHERE v.scope = $scope AND v.retracted_at = $forever AND v.status = 'pending'
  AND v.kind = 'difference' AND v.field = $field AND v.proposed_value = $proposed_value
RETURN v {.*} AS v
ORDER BY v.recorded_at DESC, v.id
LIMIT 1
