// params: scopes, forever
// What each scope holds now: current events, entities and relations (removed ones left out),
// sources, concerns and watches. Every count seeks an index on the scope (and the current
// sentinel for versions), so a scope costs what it holds, never a label scan.
UNWIND $scopes AS scope
CALL (scope) {
  MATCH (v:EventVersion) WHERE v.scope = scope AND v.retracted_at = $forever
  RETURN count(v) AS events
}
CALL (scope) {
  MATCH (v:EntityVersion) WHERE v.scope = scope AND v.retracted_at = $forever
  RETURN count(v) AS entities
}
CALL (scope) {
  MATCH (v:RelationVersion) WHERE v.scope = scope AND v.retracted_at = $forever
    AND v.removed = false
  RETURN count(v) AS relations
}
CALL (scope) {
  MATCH (s:Source) WHERE s.scope = scope
  RETURN count(s) AS sources
}
CALL (scope) {
  MATCH (c:Concern) WHERE c.scope = scope AND c.status IS NOT NULL AND c.priority IS NOT NULL
  RETURN count(c) AS concerns
}
CALL (scope) {
  MATCH (w:Watch) WHERE w.scope = scope AND w.created_at IS NOT NULL
  RETURN count(w) AS watches
}
RETURN scope, events, entities, relations, sources, concerns, watches
