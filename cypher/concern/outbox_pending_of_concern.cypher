// params: concern_id
// The concern's outbox rows not sent yet (pending, or claimed and not marked): what a
// closing decision supersedes and a priority change re-times (index outbox_concern).
MATCH (o:OutboxMessage {concern_id: $concern_id})
WHERE o.status IN ['pending', 'sending']
RETURN o.key AS key, o.kind AS kind, o.status AS status, o.report_kinds AS report_kinds,
       o.recipient_person_id AS recipient_person_id, o.recipient_name AS recipient_name,
       o.recorded_at AS recorded_at, o.deliver_at AS deliver_at
ORDER BY o.deliver_at, o.seq
