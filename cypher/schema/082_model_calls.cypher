// The cost ledger (issue 29 item 4): one ModelCall per model request. Sums are sought by
// owner (run, concern, watch) and by scope over a time range.
CREATE CONSTRAINT model_call_id IF NOT EXISTS FOR (c:ModelCall) REQUIRE c.id IS UNIQUE;
CREATE INDEX model_call_run IF NOT EXISTS FOR (c:ModelCall) ON (c.run_id, c.batch);
CREATE INDEX model_call_concern IF NOT EXISTS FOR (c:ModelCall) ON (c.concern_id);
CREATE INDEX model_call_watch IF NOT EXISTS FOR (c:ModelCall) ON (c.watch_id);
CREATE INDEX model_call_scope_at IF NOT EXISTS FOR (c:ModelCall) ON (c.scope, c.at);
