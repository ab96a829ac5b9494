// params: scope, refs
// docs/rules/concerns.md: register / update Agenda.concern_refs entries (id, priority, status, role).
MERGE (a:Agenda {scope: $scope})
WITH a
UNWIND $refs AS ref
MATCH (c:Concern {concern_id: ref.concern_id})
MERGE (a)-[t:TRACKS]->(c)
SET t.priority = ref.priority, t.status = ref.status, t.agenda_role = ref.agenda_role
RETURN count(t) AS n
