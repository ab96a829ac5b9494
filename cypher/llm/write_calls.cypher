// params: calls
// Model calls (cost ledger) whose owner wrote nothing (a failed or a no-op turn), in a
// statement of their own.
// include: model_calls
RETURN size($calls) AS calls
