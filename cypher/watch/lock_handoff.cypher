// params: scope, watch_id, execution_key
// The hand-off a partner reports on, write-locked for the rest of the transaction so two
// concurrent reports of one execution key are settled one after the other.
MATCH (h:WatchHandOff {execution_key: $execution_key})
WHERE h.scope = $scope AND h.watch_id = $watch_id
SET h.reports_seen = coalesce(h.reports_seen, 0) + 1
RETURN h {.*} AS h
