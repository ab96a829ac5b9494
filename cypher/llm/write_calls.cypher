// params: calls
// Model calls (cost ledger) of a concern loop turn, a watch check or a heartbeat report,
// written in the transaction of the owner's own records (no round trip of their own), and
// added to the deployment-wide totals per stage and model that /metrics exports. Each call
// is MERGEd on its id: a retried transaction writes it once. Supervision runs write theirs
// with review/run_write.
CALL {
  UNWIND $calls AS row
  MERGE (c:ModelCall {id: row.id})
  ON CREATE SET c += row, c.new = true
  WITH c WHERE c.new
  REMOVE c.new
  RETURN collect(c {.stage, .model, .prompt_tokens, .completion_tokens}) AS fresh
}
CALL (fresh) {
  UNWIND fresh AS row
  WITH row.stage AS stage, row.model AS model, count(row) AS n,
       sum(row.prompt_tokens) AS prompt, sum(row.completion_tokens) AS completion
  MERGE (t:ModelCallTotal {stage: stage, model: model})
  ON CREATE SET t.calls = 0, t.prompt_tokens = 0, t.completion_tokens = 0
  SET t.calls = t.calls + n, t.prompt_tokens = t.prompt_tokens + prompt,
      t.completion_tokens = t.completion_tokens + completion
  RETURN count(t) AS totals
}
RETURN size(fresh) AS written
