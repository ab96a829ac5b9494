// Heartbeat watches, continued (seed 000 验证与维护边界, 多候选关注): the partner session's
// receipts for hand-offs and the candidate rounds of a scope. Every lookup of the
// cypher/watch queries on these labels has an index or constraint here.
CREATE CONSTRAINT watch_receipt_id IF NOT EXISTS FOR (r:WatchReceipt) REQUIRE r.id IS UNIQUE;
CREATE INDEX watch_receipt_watch IF NOT EXISTS FOR (r:WatchReceipt) ON (r.watch_id, r.reported_at);
CREATE INDEX watch_receipt_key IF NOT EXISTS FOR (r:WatchReceipt) ON (r.execution_key);
CREATE CONSTRAINT watch_round_id IF NOT EXISTS FOR (r:WatchRound) REQUIRE r.id IS UNIQUE;
CREATE INDEX watch_round_scope IF NOT EXISTS FOR (r:WatchRound) ON (r.scope, r.planned_at);
