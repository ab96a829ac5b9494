// params: row
// `calls`: the model calls (cost ledger) of the report this put completes, else none.
MATCH (h:HeartbeatRun {id: $row.id})
SET h += $row
WITH h
// include: model_calls
RETURN h.id AS id
