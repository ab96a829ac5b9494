// The scopes that hold anything a person would call data (story versions, results, sources,
// concerns, watches), for the `scopes` query of an all-scope token. Each branch reads one
// index's keys (an index scan, no node is read), so it never touches a label scan.
CALL () {
  MATCH (v:EntityVersion) WHERE v.scope IS NOT NULL AND v.retracted_at IS NOT NULL
  RETURN DISTINCT v.scope AS scope
  UNION
  MATCH (v:EventVersion) WHERE v.scope IS NOT NULL AND v.retracted_at IS NOT NULL
  RETURN DISTINCT v.scope AS scope
  UNION
  MATCH (r:Result) WHERE r.scope IS NOT NULL AND r.recorded_at IS NOT NULL
  RETURN DISTINCT r.scope AS scope
  UNION
  MATCH (s:Source) WHERE s.scope IS NOT NULL
  RETURN DISTINCT s.scope AS scope
  UNION
  MATCH (c:Concern) WHERE c.scope IS NOT NULL AND c.status IS NOT NULL AND c.priority IS NOT NULL
  RETURN DISTINCT c.scope AS scope
  UNION
  MATCH (w:Watch) WHERE w.scope IS NOT NULL AND w.created_at IS NOT NULL
  RETURN DISTINCT w.scope AS scope
}
RETURN scope ORDER BY scope
