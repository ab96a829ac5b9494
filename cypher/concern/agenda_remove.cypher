// params: scope, removals
// docs/rules/concerns.md: a closed concern leaves concern_refs and is written to recent_decisions.
MERGE (a:Agenda {scope: $scope})
WITH a
UNWIND $removals AS rm
CALL (a, rm) {
  MATCH (a)-[t:TRACKS]->(:Concern {concern_id: rm.concern_id})
  DELETE t
}
MERGE (d:AgendaDecision {key: rm.key})
  ON CREATE SET d += rm.decision, d.scope = $scope
MERGE (a)-[:DECIDED]->(d)
RETURN count(d) AS n
