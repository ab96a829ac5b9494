// params: run_ids
// The cost ledger of some supervision runs: their model calls summed per run, batch (leaf
// index or navigation node), stage and model. Sought by the run_id index (086).
UNWIND $run_ids AS run_id
MATCH (c:ModelCall {run_id: run_id})
RETURN c.stage AS stage, c.model AS model, c.run_id AS run_id, c.batch AS batch,
       c.concern_id AS concern_id, c.watch_id AS watch_id, count(c) AS calls,
       sum(c.prompt_tokens) AS prompt_tokens, sum(c.completion_tokens) AS completion_tokens,
       sum(c.retries) AS retries,
       sum(CASE WHEN c.estimated THEN 1 ELSE 0 END) AS estimated_calls
ORDER BY run_id, batch, stage, model
