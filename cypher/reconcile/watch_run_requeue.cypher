// params: scope, id, seen, now
// Count one more re-queue of a lost check, only if nobody counted it since it was read
// (`seen`): the first SET takes the node's write lock, so two reconcilers count it once.
MATCH (r:WatchRun {scope: $scope, id: $id})
SET r.requeues = coalesce(r.requeues, 0)
WITH r
WHERE r.requeues = $seen AND r.status IN ['queued', 'running', 'deferred']
SET r.requeues = $seen + 1, r.requeued_at = $now
RETURN r.id AS id
