// params: handoff
// Stable execution key: a second hand-off with the same key is dropped (docs/rules/watches.md).
// `delivered` is true only for the transaction that created the node.
MERGE (h:WatchHandOff {execution_key: $handoff.execution_key})
ON CREATE SET h = $handoff
WITH h
MATCH (w:Watch {id: h.watch_id})
WHERE w.scope = h.scope
MERGE (w)-[:HANDED_OFF]->(h)
RETURN h.observation_id = $handoff.observation_id AS delivered, h {.*} AS h
