// The inbox's stopped supervision runs (issue 29): a scope's failed or paused runs newest
// first, sought by scope and status and read in keyset order of their last update.
CREATE INDEX supervision_run_inbox IF NOT EXISTS FOR (n:SupervisionRun) ON (n.scope, n.status, n.updated_at);
