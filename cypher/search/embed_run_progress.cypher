// params: id, embedded, missing, cut, status, error, now
// An embed run's progress after each batch, and its end (status completed or failed);
// `cut`: texts longer than the model takes, embedded up to a sentence boundary.
MATCH (r:EmbedRun {id: $id})
SET r.embedded = $embedded, r.missing = $missing, r.status = $status, r.error = $error,
    r.cut = $cut,
    r.updated_at = $now,
    r.finished_at = CASE WHEN $status = 'running' THEN null ELSE $now END
RETURN r.id AS id
