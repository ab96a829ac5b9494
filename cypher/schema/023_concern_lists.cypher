// concerns(scope, …) lists and concernMessages(person) read by prefix; the wider composite
// indexes of 020 need every property, so these two serve the list reads.
CREATE INDEX concern_scope_only IF NOT EXISTS FOR (c:Concern) ON (c.scope);
CREATE INDEX outbox_scope_recipient IF NOT EXISTS FOR (o:OutboxMessage) ON (o.scope, o.recipient_person_id);
