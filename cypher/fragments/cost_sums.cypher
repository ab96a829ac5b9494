// The summed calls of the ModelCall nodes `c` grouped by the clause this stands in.
count(c) AS calls, sum(c.prompt_tokens) AS prompt_tokens,
sum(c.completion_tokens) AS completion_tokens, sum(c.retries) AS retries,
sum(CASE WHEN c.estimated THEN 1 ELSE 0 END) AS estimated_calls
