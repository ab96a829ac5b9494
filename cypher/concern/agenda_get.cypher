// params: scope, keep
MATCH (a:Agenda {scope: $scope})
CALL (a) {
  OPTIONAL MATCH (a)-[t:TRACKS]->(c:Concern)
  WITH t, c ORDER BY c.created_at, c.concern_id
  RETURN collect(CASE WHEN c IS NULL THEN NULL ELSE {concern_id: c.concern_id,
    priority: t.priority, status: t.status, agenda_role: t.agenda_role} END) AS refs
}
CALL (a) {
  OPTIONAL MATCH (a)-[:DECIDED]->(d:AgendaDecision)
  WITH d ORDER BY d.ts DESC LIMIT $keep
  WITH d ORDER BY d.ts
  RETURN collect(d {.concern_id, .title, .outcome, .reason, .priority, .ts}) AS decisions
}
RETURN refs, decisions
