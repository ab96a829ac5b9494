// A watch's evidence (docs/rules/watches.md): the sources it reads, the steps its check
// identified in them (each with its kind, status, completion criterion and the line it
// recorded as evidence) and its latest check, one row each, in that order; the graph draws
// the watch with its bindings, steps and observation.
// Pasted as it is, it shows the demo's watch 提测前检查 (its check found 张三's stand-up line);
// edit the WITH line for another scope or a watch id.
WITH 'demo' AS scope, '' AS watch_id  // '': the scope's newest watch
MATCH (w:Watch)
WHERE w.scope = scope AND (watch_id = '' OR w.id = watch_id)
WITH w ORDER BY w.created_at DESC LIMIT 1
CALL (w) {
  MATCH reads = (w)-[:BINDS]->(b:WatchBinding)
  RETURN '1 reads' AS step, b.ordinal AS n,
         b.kind + ' ' + coalesce(b.note_id, b.library_id + '/' + b.document_id) + ' 「' + b.title
           + '」' AS what, reads AS drawn
  UNION
  MATCH found = (w)-[:HAS_STEP]->(s:WatchStep)
  RETURN '2 step' AS step, s.ordinal AS n,
         s.step_id + ' · ' + s.kind + ' · ' + s.status + ' · 完成标准: ' + s.completion_criteria
           + coalesce(' · evidence: ' + s.evidence_text, '') AS what, found AS drawn
  UNION
  MATCH seen = (w)-[:OBSERVED]->(o:WatchObservation)
  WITH seen, o ORDER BY o.observed_at DESC LIMIT 1
  RETURN '3 check' AS step, 0 AS n,
         toString(o.observed_at) + ' · ' + coalesce(o.outcome_status, 'no outcome') + ' · '
           + o.summary + coalesce(' · hand-off: ' + o.handoff_status, '') AS what, seen AS drawn
}
RETURN step, what, drawn
ORDER BY step, n
