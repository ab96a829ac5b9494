// The deployment-wide model call totals per stage and model (one node each), for /metrics.
MATCH (t:ModelCallTotal)
// the (stage, model) constraint's index, read whole (one node per stage and model)
WHERE t.stage IS NOT NULL AND t.model IS NOT NULL
// a total missing a count (a store written before every call carried its tokens) reads 0
RETURN t.stage AS stage, t.model AS model, coalesce(t.calls, 0) AS calls,
       coalesce(t.prompt_tokens, 0) AS prompt_tokens,
       coalesce(t.completion_tokens, 0) AS completion_tokens
ORDER BY stage, model
