// params: run
// One run per stable id: a duplicate trigger finds the existing run.
MERGE (r:WatchRun {id: $run.id})
ON CREATE SET r = $run
RETURN r {.*} AS r, r.claimed_by = $run.claimed_by AND r.started_at = $run.started_at AS claimed
