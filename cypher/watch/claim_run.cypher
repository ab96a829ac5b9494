// params: run
// One run per stable id in its scope: a duplicate trigger finds the existing run (the same
// request id in another scope is another run). A run recorded
// `queued` (requested, not yet taken) becomes `running`, claimed by the first worker.
MERGE (r:WatchRun {scope: $run.scope, id: $run.id})
ON CREATE SET r = $run
WITH r
FOREACH (_ IN CASE WHEN r.status = 'queued' THEN [1] ELSE [] END |
  SET r.status = 'running', r.claimed_by = $run.claimed_by, r.started_at = $run.started_at,
      r.deployment = coalesce(r.deployment, $run.deployment))
RETURN r {.*} AS r, r.claimed_by = $run.claimed_by AND r.started_at = $run.started_at AS claimed
