// One signal's chain (docs/rules/loop.md): the passage it cites → the signal (its kind,
// status and the agenda's decision) → the concern raised or supplemented for it → the
// answer's line (the concern's conversation, stored as a source version) → the event or
// correction that person wrote via the concern. One row per step, in order; the graph
// draws each step's nodes with the VERSION / CITES / LOCATES relationships between them.
// Find an id: MATCH (v:SignalVersion) WHERE v.scope = 'demo' RETURN v.id, v.kind, v.text
// Pasted as it is, it shows the newest signal of the demo (张三's answered difference);
// edit the WITH line for another scope or a signal id.
WITH 'demo' AS scope, '' AS signal_id  // '': the scope's newest signal
MATCH (v:SignalVersion)
WHERE v.scope = scope AND v.recorded_at IS NOT NULL AND v.retracted_at > datetime()
  AND (signal_id = '' OR v.id = signal_id)
WITH scope, v ORDER BY v.recorded_at DESC LIMIT 1
MATCH signal = (:Signal)-[:VERSION]->(v)-[cites:CITES]->(passage:SourceVersion)
OPTIONAL MATCH (named:Concern {concern_id: v.decision_concern_id})
  WHERE named.scope = scope
OPTIONAL MATCH (raised:Concern {signal_id: v.id})
  WHERE raised.scope = scope
WITH scope, v, signal, cites, passage, coalesce(named, raised) AS c
OPTIONAL CALL {
  WITH scope, c
  MATCH brought = (n:Event)-[:VERSION]->(b:EventVersion {via_concern: c.concern_id})
  WHERE b.scope = scope
  RETURN brought, b, n, 'event' AS kind
  UNION
  WITH scope, c
  MATCH brought = (n:Relation)-[:VERSION]->(b:RelationVersion {via_concern: c.concern_id})
  WHERE b.scope = scope
  RETURN brought, b, n, 'correction' AS kind
  UNION
  WITH scope, c
  MATCH brought = (n:Entity)-[:VERSION]->(b:EntityVersion {via_concern: c.concern_id})
  WHERE b.scope = scope
  RETURN brought, b, n, 'correction' AS kind
  UNION
  WITH scope, c
  MATCH brought = (n:Suggestion)-[:VERSION]->(b:SuggestionVersion {via_concern: c.concern_id})
  WHERE b.scope = scope
  RETURN brought, b, n, 'correction' AS kind
}
OPTIONAL MATCH answer = (n)-[:CITES]->(r:Reference)-[:LOCATES]->(said:SourceVersion)
WITH v, signal, cites, passage, c,
     collect(DISTINCT [brought, b, kind, answer, said.source_id + ' ' + said.version + ' @ '
                       + r.locator]) AS writes
UNWIND [
  ['1 passage', passage.source_id + ' ' + passage.version + ' @ ' + cites.locator, signal],
  ['2 signal', v.kind + ' · ' + v.status + ' · ' + coalesce(v.decision_kind, 'undecided') + ' '
     + coalesce(v.decision_concern_id, v.decision_reason, '') + ' · ' + v.text, signal],
  ['3 concern', CASE WHEN c IS NULL THEN 'none' ELSE c.concern_id + ' · ' + c.status + ' · '
     + c.goal END, c]
] + [w IN writes WHERE w[3] IS NOT NULL | ['4 answer', w[4], w[3]]]
  + [w IN writes WHERE w[0] IS NOT NULL | ['5 ' + w[2], coalesce(w[1].title, w[1].name,
       w[1].type, w[1].field, w[1].id) + ' (by ' + w[1].by + ' via ' + w[1].via_concern + ')',
       w[0]]] AS step
RETURN step[0] AS step, step[1] AS what, step[2] AS drawn
ORDER BY step
