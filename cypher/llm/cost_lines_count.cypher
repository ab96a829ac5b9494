// params: scope, since, until
// How many lines (owner, stage and model) the cost ledger of a scope has in [since, until).
MATCH (c:ModelCall)
WHERE c.scope = $scope AND c.at >= $since AND c.at < $until
WITH DISTINCT c.stage AS stage, c.model AS model, c.run_id AS run_id, c.batch AS batch,
     c.concern_id AS concern_id, c.watch_id AS watch_id
RETURN count(*) AS n
