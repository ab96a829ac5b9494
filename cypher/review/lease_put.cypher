// params: key, row
MATCH (l:ReviewLease {key: $key})
SET l += $row
RETURN l.token AS token
