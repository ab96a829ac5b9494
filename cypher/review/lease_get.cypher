// params: key
MATCH (l:ReviewLease {key: $key})
RETURN l {.owner, .run_id, .token, .acquired_at, .expires_at, .worker_id} AS lease
