// params: id
// Takes the supervision run's write lock for the rest of the transaction, so a cancel from
// the API and a batch commit from a worker are applied one after the other, never both
// on the same stale read.
MATCH (r:SupervisionRun {id: $id})
SET r.lock_seq = coalesce(r.lock_seq, 0) + 1
RETURN r.id AS id
