// One concern's path (docs/rules/concerns.md): its state and goal, the people it involves, the agenda that
// tracks it, and every message it wrote, in delivery order (status: pending, sending, sent,
// failed). The full timeline and conversation log are JSON in the concern's `doc`.
// Find an id: MATCH (c:Concern) WHERE c.scope = 'demo' RETURN c.concern_id, c.title
// Pasted as it is, it shows the newest concern of scope `demo` (`make run`'s demo raises
// one: asking 张三 when the sandbox arrives); edit the WITH line for another scope or id.
WITH 'demo' AS scope, '' AS concern_id  // '': the scope's newest concern
MATCH (c:Concern)
WHERE c.scope = scope AND c.created_at IS NOT NULL
  AND (concern_id = '' OR c.concern_id = concern_id)
WITH c ORDER BY c.created_at DESC LIMIT 1
OPTIONAL MATCH people = (c)-[:INVOLVES]->(:Person)
OPTIONAL MATCH agenda = (:Agenda)-[:TRACKS]->(c)
OPTIONAL MATCH (o:OutboxMessage)
  WHERE o.concern_id = c.concern_id
RETURN c.status AS status, c.title AS title, c.goal AS goal, collect(DISTINCT people) AS people,
       collect(DISTINCT agenda) AS agenda, o.deliver_at AS deliver_at, o.kind AS message_kind,
       o.status AS message_status, o.recipient_person_id AS recipient, o AS message
ORDER BY deliver_at
