// Concern engine (seed 002): concerns, the people they involve, the agenda, the outbox.
// A concern node carries its whole document (`doc`, JSON: timeline and conversation_log
// in order) beside top-level copies of the fields every scan and filter reads.
CREATE CONSTRAINT concern_id IF NOT EXISTS FOR (c:Concern) REQUIRE c.concern_id IS UNIQUE;
// scan_due_concerns / scan_timeouts: status equality + next_action.when range (seed 002 §十).
CREATE INDEX concern_due IF NOT EXISTS FOR (c:Concern) ON (c.status, c.next_action_when);
// scan_schedules: the schedule trigger's next run.
CREATE INDEX concern_schedule IF NOT EXISTS FOR (c:Concern) ON (c.next_run_at);
// concerns(...) listing per agenda scope, filtered by status and priority.
CREATE INDEX concern_scope IF NOT EXISTS FOR (c:Concern) ON (c.scope, c.status, c.priority);
// Person master data lives on its own node (seed 002 §八); concerns keep minimal refs.
CREATE CONSTRAINT person_key IF NOT EXISTS FOR (p:Person) REQUIRE (p.scope, p.person_id) IS UNIQUE;
CREATE CONSTRAINT agenda_scope IF NOT EXISTS FOR (a:Agenda) REQUIRE a.scope IS UNIQUE;
CREATE CONSTRAINT agenda_decision_key IF NOT EXISTS FOR (d:AgendaDecision) REQUIRE d.key IS UNIQUE;
CREATE INDEX agenda_decision_scope IF NOT EXISTS FOR (d:AgendaDecision) ON (d.scope, d.ts);
// Outbox rows MERGEd on the effect key: recorded before sent, sent once.
CREATE CONSTRAINT outbox_key IF NOT EXISTS FOR (o:OutboxMessage) REQUIRE o.key IS UNIQUE;
CREATE INDEX outbox_due IF NOT EXISTS FOR (o:OutboxMessage) ON (o.status, o.deliver_at);
CREATE INDEX outbox_recipient IF NOT EXISTS FOR (o:OutboxMessage) ON (o.scope, o.recipient_person_id, o.deliver_at);
CREATE INDEX outbox_concern IF NOT EXISTS FOR (o:OutboxMessage) ON (o.concern_id);
