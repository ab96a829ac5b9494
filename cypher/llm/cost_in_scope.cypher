// params: scope, since, until
// The cost ledger of one scope in [since, until): the model calls summed per owner (run and
// batch, concern, watch), stage and model. Sought by the (scope, at) index.
MATCH (c:ModelCall)
WHERE c.scope = $scope AND c.at >= $since AND c.at < $until
RETURN c.stage AS stage, c.model AS model, c.run_id AS run_id, c.batch AS batch,
       c.concern_id AS concern_id, c.watch_id AS watch_id, count(c) AS calls,
       sum(c.prompt_tokens) AS prompt_tokens, sum(c.completion_tokens) AS completion_tokens,
       sum(c.retries) AS retries,
       sum(CASE WHEN c.estimated THEN 1 ELSE 0 END) AS estimated_calls
ORDER BY run_id, batch, stage, model, concern_id, watch_id
