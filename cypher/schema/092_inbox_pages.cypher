// The inbox's pages (issue 29): a scope's pending current suggestions newest first, sought
// by scope and status and read in keyset order of their record time, so dismissed and
// accepted ones (their history) are never walked; and its failed or paused supervision runs
// newest first, sought by scope and status and read in keyset order of their last update.
CREATE INDEX suggestion_version_inbox IF NOT EXISTS FOR (v:SuggestionVersion) ON (v.scope, v.status, v.retracted_at, v.recorded_at);
CREATE INDEX supervision_run_inbox IF NOT EXISTS FOR (n:SupervisionRun) ON (n.scope, n.status, n.updated_at);
