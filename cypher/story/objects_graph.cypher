// params: scope, as_of, ids
// storyObjects: the objects $ids as believed at $as_of with what their details show
// (docs/rules/story-graph.md), in one round trip that touches only their neighbourhood: a
// named entity with the relations that touch it, the entities at their other ends and the
// changes that affect it with their events; a named relation with its two entities; a named
// event with its changes and the entities they touch; a named change with its event and
// entity; a named summary with its events and entities; and the suggestions about and the
// references of the named objects (and of those suggestions). An id is looked up as every
// kind (ids do not say their kind); engine.story.views.select_graph applies the rest
// (removed relations), so this returns a superset of the answer.
// Every step seeks an index whose leading key is an id, or an identity node by its unique id.
CALL () {
  UNWIND $ids AS id
  MATCH (v:RelationVersion)
  USING INDEX SEEK v:RelationVersion(id)
  WHERE v.id = id AND v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS named_relations
}
CALL () {
  UNWIND $ids AS id
  MATCH (v:RelationVersion)
  USING INDEX SEEK v:RelationVersion(from_id, retracted_at)
  WHERE v.from_id = id AND v.retracted_at > $as_of AND v.recorded_at <= $as_of
    AND v.scope = $scope
  RETURN collect(v) AS outgoing
}
CALL () {
  UNWIND $ids AS id
  MATCH (v:RelationVersion)
  USING INDEX SEEK v:RelationVersion(to_id, retracted_at)
  WHERE v.to_id = id AND v.retracted_at > $as_of AND v.recorded_at <= $as_of
    AND v.scope = $scope
  RETURN collect(v) AS incoming
}
CALL () {
  UNWIND $ids AS id
  MATCH (c:Change {id: id})
  WHERE c.scope = $scope AND c.recorded_at <= $as_of
  RETURN collect(c) AS named_changes
}
CALL () {
  UNWIND $ids AS id
  MATCH (c:Change)
  USING INDEX SEEK c:Change(event_id, recorded_at)
  WHERE c.event_id = id AND c.recorded_at <= $as_of AND c.scope = $scope
  RETURN collect(c) AS event_changes
}
CALL () {
  UNWIND $ids AS id
  MATCH (:Entity {id: id})<-[:AFFECTS]-(c:Change)
  WHERE c.scope = $scope AND c.recorded_at <= $as_of
  RETURN collect(c) AS entity_changes
}
CALL () {
  UNWIND $ids AS id
  MATCH (s:Summary {id: id})
  WHERE s.scope = $scope AND s.recorded_at <= $as_of
  RETURN collect(s) AS summaries
}
CALL (named_relations, outgoing, incoming) {
  UNWIND named_relations + outgoing + incoming AS r
  RETURN collect(DISTINCT r) AS relations
}
CALL (named_changes, event_changes, entity_changes) {
  UNWIND named_changes + event_changes + entity_changes AS c
  RETURN collect(DISTINCT c) AS changes
}
CALL (relations, changes, summaries) {
  UNWIND $ids + [r IN relations | r.from_id] + [r IN relations | r.to_id]
         + [c IN changes | c.entity_id]
         + reduce(acc = [], s IN summaries | acc + coalesce(s.entity_ids, [])) AS id
  WITH DISTINCT id
  MATCH (v:EntityVersion)
  USING INDEX SEEK v:EntityVersion(id, retracted_at)
  WHERE v.id = id AND v.retracted_at > $as_of AND v.recorded_at <= $as_of AND v.scope = $scope
  RETURN collect(v) AS entities
}
CALL (changes, summaries) {
  UNWIND $ids + [c IN changes | c.event_id]
         + reduce(acc = [], s IN summaries | acc + coalesce(s.event_ids, [])) AS id
  WITH DISTINCT id
  MATCH (v:EventVersion)
  USING INDEX SEEK v:EventVersion(id)
  WHERE v.id = id AND v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS events
}
CALL () {
  UNWIND $ids AS id
  MATCH (v:SuggestionVersion {target_id: id})
  USING INDEX SEEK v:SuggestionVersion(target_id)
  WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS suggestions
}
CALL (suggestions) {
  UNWIND $ids + [x IN suggestions | x.id] AS id
  WITH DISTINCT id
  MATCH (r:Reference {owner_id: id})
  USING INDEX SEEK r:Reference(owner_id)
  WHERE r.scope = $scope AND r.recorded_at <= $as_of
  RETURN collect(r) AS references
}
WITH [] AS stories, events, entities, relations, changes, summaries, references, suggestions
// include: story_lists
