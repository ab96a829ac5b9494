// params: calls
// The cost ledger's model calls, written by the statement of whoever made them (a concern's
// save, a watch's update, a heartbeat run's put, a supervision run's write, or
// llm/write_calls when the owner wrote nothing), so a call costs no statement of its own.
// Each call is written once: one already stored (a transaction whose commit was retried) is
// skipped with its totals. The deployment-wide totals per stage and model are what /metrics
// exports as counters. Runs once per row reaching it: place it where one row remains.
CALL () {
  UNWIND $calls AS row
  OPTIONAL MATCH (stored:ModelCall {id: row.id})
  WITH row WHERE stored IS NULL
  CREATE (c:ModelCall)
  SET c = row
  MERGE (t:ModelCallTotal {stage: row.stage, model: row.model})
  SET t.calls = coalesce(t.calls, 0) + 1,
      t.prompt_tokens = coalesce(t.prompt_tokens, 0) + coalesce(row.prompt_tokens, 0),
      t.completion_tokens = coalesce(t.completion_tokens, 0) + coalesce(row.completion_tokens, 0)
}
