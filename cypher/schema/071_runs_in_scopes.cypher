// A caller limited to some scopes lists supervision runs, heartbeat runs and activity by
// seeking each of its scopes in order (`*_in_scopes` queries): its page never walks other
// scopes' runs, so its cost grows with its own page, not with the deployment's history.
CREATE INDEX supervision_run_scope_page IF NOT EXISTS FOR (n:SupervisionRun) ON (n.deployment, n.scope, n.created_at);
CREATE INDEX heartbeat_run_scope_page IF NOT EXISTS FOR (n:HeartbeatRun) ON (n.deployment, n.scope, n.claimed_at);
