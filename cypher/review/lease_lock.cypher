// params: key
// The one-review lease: MERGE on its unique key, then a write that takes the node's lock, so
// every reader-then-writer below runs one at a time across processes (compare-and-set).
MERGE (l:ReviewLease {key: $key})
SET l.lock_seq = coalesce(l.lock_seq, 0) + 1
RETURN l {.owner, .run_id, .token, .acquired_at, .expires_at, .worker_id} AS lease
