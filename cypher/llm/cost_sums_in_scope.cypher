// params: scope, since, until
// The sums of the cost ledger of a scope in [since, until), over every call of the window:
// one `total` row, then per stage and model (`stage`: stage, model), per run, per concern
// and per watch (`run`, `concern`, `watch`: id), each in the order of its key. Each part is
// sought by the (scope, at) index.
CALL {
  MATCH (c:ModelCall)
  WHERE c.scope = $scope AND c.at >= $since AND c.at < $until
  RETURN 'total' AS part, '' AS id, '' AS model,
         // include: cost_sums
  UNION ALL
  MATCH (c:ModelCall)
  WHERE c.scope = $scope AND c.at >= $since AND c.at < $until
  RETURN 'stage' AS part, c.stage AS id, c.model AS model,
         // include: cost_sums
  UNION ALL
  MATCH (c:ModelCall)
  WHERE c.scope = $scope AND c.at >= $since AND c.at < $until AND c.run_id IS NOT NULL
  RETURN 'run' AS part, c.run_id AS id, '' AS model,
         // include: cost_sums
  UNION ALL
  MATCH (c:ModelCall)
  WHERE c.scope = $scope AND c.at >= $since AND c.at < $until AND c.concern_id IS NOT NULL
  RETURN 'concern' AS part, c.concern_id AS id, '' AS model,
         // include: cost_sums
  UNION ALL
  MATCH (c:ModelCall)
  WHERE c.scope = $scope AND c.at >= $since AND c.at < $until AND c.watch_id IS NOT NULL
  RETURN 'watch' AS part, c.watch_id AS id, '' AS model,
         // include: cost_sums
}
RETURN part, id, model, calls, prompt_tokens, completion_tokens, retries, estimated_calls
ORDER BY part, id, model
