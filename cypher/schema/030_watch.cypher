// Heartbeat watches (seed 000 持续关注): the watch, its bindings, grants, step list,
// runs, observations, hand-offs (unique stable execution key), checkpoints and the
// knowledge-library catalogue. Every lookup the cypher/watch queries make has one here.
CREATE CONSTRAINT watch_id IF NOT EXISTS FOR (w:Watch) REQUIRE w.id IS UNIQUE;
CREATE INDEX watch_scope IF NOT EXISTS FOR (w:Watch) ON (w.scope, w.created_at);
CREATE CONSTRAINT watch_binding_key IF NOT EXISTS FOR (b:WatchBinding) REQUIRE (b.watch_id, b.binding_id) IS UNIQUE;
CREATE CONSTRAINT watch_grant_key IF NOT EXISTS FOR (g:WatchGrant) REQUIRE g.id IS UNIQUE;
CREATE INDEX watch_grant_watch IF NOT EXISTS FOR (g:WatchGrant) ON (g.watch_id);
CREATE CONSTRAINT watch_step_key IF NOT EXISTS FOR (s:WatchStep) REQUIRE (s.watch_id, s.step_id) IS UNIQUE;
CREATE CONSTRAINT watch_run_id IF NOT EXISTS FOR (r:WatchRun) REQUIRE r.id IS UNIQUE;
CREATE INDEX watch_run_watch IF NOT EXISTS FOR (r:WatchRun) ON (r.watch_id);
CREATE CONSTRAINT watch_observation_id IF NOT EXISTS FOR (o:WatchObservation) REQUIRE o.id IS UNIQUE;
CREATE INDEX watch_observation_watch IF NOT EXISTS FOR (o:WatchObservation) ON (o.watch_id, o.observed_at);
CREATE CONSTRAINT watch_handoff_key IF NOT EXISTS FOR (h:WatchHandOff) REQUIRE h.execution_key IS UNIQUE;
CREATE INDEX watch_handoff_watch IF NOT EXISTS FOR (h:WatchHandOff) ON (h.watch_id);
CREATE CONSTRAINT watch_checkpoint_id IF NOT EXISTS FOR (c:WatchCheckpoint) REQUIRE c.id IS UNIQUE;
CREATE INDEX watch_checkpoint_watch IF NOT EXISTS FOR (c:WatchCheckpoint) ON (c.watch_id, c.recorded_at);
CREATE CONSTRAINT library_entry_key IF NOT EXISTS FOR (e:LibraryEntry) REQUIRE (e.library_id, e.document_id) IS UNIQUE;
CREATE INDEX library_entry_library IF NOT EXISTS FOR (e:LibraryEntry) ON (e.library_id);
