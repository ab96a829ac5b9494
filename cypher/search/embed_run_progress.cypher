// params: id, embedded, missing, status, error, now
// An embed run's progress after each batch, and its end (status completed or failed).
MATCH (r:EmbedRun {id: $id})
SET r.embedded = $embedded, r.missing = $missing, r.status = $status, r.error = $error,
    r.updated_at = $now,
    r.finished_at = CASE WHEN $status = 'running' THEN null ELSE $now END
RETURN r.id AS id
