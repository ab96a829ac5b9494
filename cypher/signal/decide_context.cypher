// params: scope, now, rows, responsible_types, open_statuses
// What the graph knows for each signal the agenda decides (one statement for a whole
// publish): the current person bindings among the row's candidate ids (its speaker in its
// source, its person entity), the bindings of the person entities responsible for a
// difference's target (the relation's own `from` person, or a current responsibility
// relation to the entity), the bindings of the concern person who last corrected the target
// through a concern (its current version is by `person:<id>`), and an open concern the agenda raised for a signal with the same
// subject (it covers this one).
UNWIND $rows AS row
RETURN row.key AS key,
  COLLECT {
    MATCH (b:PersonBindingVersion)
    WHERE b.id IN row.binding_ids AND b.retracted_at > $now
    RETURN b {.*} AS b
  } AS bound,
  COLLECT {
    MATCH (r:RelationVersion)
    WHERE row.target_kind = 'relation' AND r.id = row.target_id AND r.retracted_at > $now
      AND r.scope = $scope
    MATCH (b:PersonBindingVersion)
    WHERE b.scope = $scope AND b.entity_id = r.from_id AND b.retracted_at > $now
    RETURN b {.*} AS b
    UNION
    MATCH (r:RelationVersion)
    WHERE row.target_kind = 'entity' AND r.to_id = row.target_id AND r.retracted_at > $now
      AND r.scope = $scope AND NOT coalesce(r.removed, false)
      AND r.confirmation <> 'rejected' AND toLower(r.type) IN $responsible_types
    MATCH (b:PersonBindingVersion)
    WHERE b.scope = $scope AND b.entity_id = r.from_id AND b.retracted_at > $now
    RETURN b {.*} AS b
  } AS responsible,
  COLLECT {
    MATCH (t:EntityVersion)
    WHERE row.target_kind = 'entity' AND t.id = row.target_id AND t.retracted_at > $now
      AND t.scope = $scope AND t.by STARTS WITH 'person:'
    MATCH (b:PersonBindingVersion)
    WHERE b.scope = $scope AND b.person_id = substring(t.by, 7) AND b.retracted_at > $now
    RETURN b {.*} AS b
    UNION
    MATCH (t:RelationVersion)
    WHERE row.target_kind = 'relation' AND t.id = row.target_id AND t.retracted_at > $now
      AND t.scope = $scope AND t.by STARTS WITH 'person:'
    MATCH (b:PersonBindingVersion)
    WHERE b.scope = $scope AND b.person_id = substring(t.by, 7) AND b.retracted_at > $now
    RETURN b {.*} AS b
  } AS corrector,
  COLLECT {
    MATCH (s:SignalVersion)
    USING INDEX s:SignalVersion(scope, subject)
    WHERE s.scope = $scope AND s.subject = row.subject AND s.retracted_at > $now
      AND s.decision_kind = 'raised'
    MATCH (c:Concern)
    USING INDEX c:Concern(signal_id)
    WHERE c.signal_id = s.id AND c.status IN $open_statuses
    RETURN c.concern_id AS c ORDER BY c LIMIT 1
  } AS covering
