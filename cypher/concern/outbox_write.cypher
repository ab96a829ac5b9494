// params: rows
// Outbox rows MERGEd on the effect key: a decision recorded twice records each message once.
UNWIND $rows AS row
MERGE (o:OutboxMessage {key: row.key})
  ON CREATE SET o += row, o.status = 'pending', o.attempts = 0
RETURN count(o) AS n
