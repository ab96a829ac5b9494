// params: ids
// The cost ledger of some watches: each one's model calls summed, sought
// by the ModelCall(watch_id) index (082). The caller already read the watches (its
// scope was checked there); ids without calls answer no row.
UNWIND $ids AS owner
MATCH (c:ModelCall {watch_id: owner})
RETURN owner, count(c) AS calls, sum(c.prompt_tokens) AS prompt_tokens,
       sum(c.completion_tokens) AS completion_tokens, sum(c.retries) AS retries,
       sum(CASE WHEN c.estimated THEN 1 ELSE 0 END) AS estimated_calls
