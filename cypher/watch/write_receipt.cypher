// params: receipt
// The partner session's report, kept against its hand-off whether accepted or rejected.
MATCH (h:WatchHandOff {execution_key: $receipt.execution_key})
WHERE h.scope = $receipt.scope
MERGE (r:WatchReceipt {id: $receipt.id})
ON CREATE SET r = $receipt
MERGE (h)-[:RECEIPT]->(r)
RETURN r {.*} AS r
