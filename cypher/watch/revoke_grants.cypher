// params: scope, watch_id, binding_ids, reason, at
// Stopping, deleting or re-binding a watch revokes its document grants (docs/rules/watches.md).
MATCH (g:WatchGrant {watch_id: $watch_id})
WHERE g.scope = $scope AND g.binding_id IN $binding_ids AND g.revoked_at IS NULL
SET g.revoked_at = $at, g.revoke_reason = $reason
RETURN count(g) AS revoked
