// params: scope, since, until, after, limit
// One page of the cost ledger's lines of a scope in [since, until): the model calls summed
// per owner (run and batch, concern, watch), stage and model, in the order of each line's
// key (run, batch, stage, model, concern, watch; a missing part last) after the keyset
// cursor ($after, '' for none), cut at $limit. Sought by the (scope, at) index.
MATCH (c:ModelCall)
WHERE c.scope = $scope AND c.at >= $since AND c.at < $until
WITH c.stage AS stage, c.model AS model, c.run_id AS run_id, c.batch AS batch,
     c.concern_id AS concern_id, c.watch_id AS watch_id,
     // include: cost_sums
WITH *, reduce(k = '', part IN [run_id, batch, stage, model, concern_id, watch_id] |
       k + coalesce(part, '\uFFFF') + '\u001F') AS key
WHERE key > $after
RETURN key, stage, model, run_id, batch, concern_id, watch_id, calls, prompt_tokens,
       completion_tokens, retries, estimated_calls
ORDER BY key
LIMIT $limit
