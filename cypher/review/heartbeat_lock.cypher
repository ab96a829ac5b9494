// params: id
// Takes the run's write lock for the rest of the transaction, then reads it.
MATCH (h:HeartbeatRun {id: $id})
SET h.lock_seq = coalesce(h.lock_seq, 0) + 1
RETURN h.doc AS doc
