// params: scope
// deleteScope: every node tagged with the scope (story identities and versions, results,
// sources, concerns, people, outbox, watches, runs, ...) and its relationships, 1,000 nodes
// per transaction, so a large scope never needs one huge transaction. Runs in an implicit
// (auto-commit) transaction, as CALL ... IN TRANSACTIONS requires. Nodes of other scopes and
// scope-less ones (migrations, settings) are untouched. It reads every node once: an admin's
// clean-up, not a request-path query.
MATCH (n)
WHERE n.scope = $scope
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(*) AS deleted
