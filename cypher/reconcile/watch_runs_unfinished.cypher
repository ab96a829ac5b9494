// params: deployment, before, limit
// Watch checks of this deployment not finished and not touched since `before` (queued,
// claimed or last queued again earlier): candidates whose job the reconciler looks up.
MATCH (r:WatchRun {deployment: $deployment})
WHERE r.status IN ['queued', 'running', 'deferred']
  AND coalesce(r.requeued_at, r.started_at, r.queued_at) < $before
RETURN r.id AS id, r.scope AS scope, r.watch_id AS watch_id, r.status AS status,
       coalesce(r.requeues, 0) AS requeues
ORDER BY coalesce(r.requeued_at, r.started_at, r.queued_at)
LIMIT $limit
