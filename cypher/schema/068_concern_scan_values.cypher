// The scheduler's scans (seed 002 §十) read only properties their index holds, so a scan of
// N due concerns costs an index seek of N entries, not N node reads (issue 14 item 6):
// equality and range first (status + next_action.when; type + a schedule's next run), then
// the properties the scans filter on and return. They replace the two-property indexes.
DROP INDEX concern_due IF EXISTS;
DROP INDEX concern_schedule IF EXISTS;
CREATE INDEX concern_due_values IF NOT EXISTS FOR (c:Concern) ON (c.status, c.next_action_when, c.type, c.scope, c.concern_id);
CREATE INDEX concern_schedule_values IF NOT EXISTS FOR (c:Concern) ON (c.type, c.next_run_at, c.status, c.scope, c.concern_id);
