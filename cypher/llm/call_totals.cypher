// The deployment-wide model call totals per stage and model (one node each), for /metrics.
MATCH (t:ModelCallTotal)
// the (stage, model) constraint's index, read whole (one node per stage and model)
WHERE t.stage IS NOT NULL AND t.model IS NOT NULL
RETURN t.stage AS stage, t.model AS model, t.calls AS calls,
       t.prompt_tokens AS prompt_tokens, t.completion_tokens AS completion_tokens
ORDER BY stage, model
