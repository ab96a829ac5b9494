// A watch run is identified within its scope: a runWatchNow requestId reused in another
// scope is another run, not a repeat to drop. (scope, id) replaces the global id constraint.
DROP CONSTRAINT watch_run_id IF EXISTS;
CREATE CONSTRAINT watch_run_scope_id IF NOT EXISTS FOR (r:WatchRun) REQUIRE (r.scope, r.id) IS UNIQUE;
