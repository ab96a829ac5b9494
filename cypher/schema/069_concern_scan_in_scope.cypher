// A scheduler run limited to one scope (`runConcernScheduler(scope:)`) seeks that scope's due
// entries only: scope first, then the same keys as the global scans' indexes (068), so its
// cost grows with the scope's due concerns, not with every scope's backlog (issue 14).
CREATE INDEX concern_due_in_scope IF NOT EXISTS FOR (c:Concern) ON (c.scope, c.status, c.next_action_when, c.type, c.concern_id);
CREATE INDEX concern_schedule_in_scope IF NOT EXISTS FOR (c:Concern) ON (c.scope, c.type, c.next_run_at, c.status, c.concern_id);
