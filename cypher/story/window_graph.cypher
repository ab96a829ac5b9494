// params: scope, as_of, from_time, to_time, story_id
// A storyGraph window in one round trip (seed 004 L6 选择过去时刻或时间区间; DESIGN "Time"):
// the event versions believed at $as_of with from <= at <= to (index: scope, at), the changes
// of those events, the entities they touch, the relations among those entities, the
// suggestions about and the references of all of them, the stage summaries overlapping the
// window, and the stories. engine.story.views.select_graph applies the remaining filters
// (validAt, removed relations), so this returns a superset of the answer and never more
// than the window's neighbourhood, however long the scope's history is.
MATCH (ev:EventVersion)
USING INDEX ev:EventVersion(scope, at)
WHERE ev.scope = $scope AND ev.at >= $from_time AND ev.at <= $to_time
  AND ev.recorded_at <= $as_of AND ev.retracted_at > $as_of
  AND ($story_id IS NULL OR ev.story_id = $story_id)
WITH collect(ev) AS events
CALL (events) {
  UNWIND events AS ev
  MATCH (:Event {id: ev.id})-[:CHANGES]->(c:Change)
  WHERE c.scope = $scope AND c.recorded_at <= $as_of
  RETURN collect(c) AS changes
}
CALL (changes) {
  UNWIND changes AS c
  WITH DISTINCT c.entity_id AS id
  RETURN collect(id) AS entity_ids
}
CALL (entity_ids) {
  UNWIND entity_ids AS id
  MATCH (:Entity {id: id})-[:VERSION]->(v:EntityVersion)
  WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS entities
}
CALL (entity_ids) {
  UNWIND entity_ids AS id
  MATCH (v:RelationVersion {from_id: id})
  USING INDEX v:RelationVersion(from_id)
  WHERE v.scope = $scope AND v.to_id IN entity_ids
    AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS relations
}
CALL () {
  MATCH (s:Summary)
  USING INDEX s:Summary(scope, interval_start)
  WHERE s.scope = $scope AND s.interval_start <= $to_time AND s.interval_end >= $from_time
    AND s.recorded_at <= $as_of AND ($story_id IS NULL OR s.story_id = $story_id)
  RETURN collect(s) AS summaries
}
CALL () {
  MATCH (v:StoryVersion)
  WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS stories
}
WITH events, changes, entities, relations, summaries, stories,
     [x IN events | x.id] + [x IN changes | x.id] + [x IN entities | x.id]
       + [x IN relations | x.id] + [x IN summaries | x.id] AS owners
CALL (owners) {
  UNWIND owners AS id
  MATCH (v:SuggestionVersion {target_id: id})
  USING INDEX v:SuggestionVersion(target_id)
  WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS suggestions
}
CALL (owners, suggestions) {
  UNWIND owners + [x IN suggestions | x.id] AS id
  MATCH (r:Reference {owner_id: id})
  USING INDEX r:Reference(owner_id)
  WHERE r.scope = $scope AND r.recorded_at <= $as_of
  RETURN collect(r) AS references
}
RETURN [x IN stories | x {.*}] AS stories,
       [x IN events | x {.*}] AS events,
       [x IN entities | x {.*}] AS entities,
       [x IN relations | x {.*}] AS relations,
       [x IN changes | x {.*}] AS changes,
       [x IN summaries | x {.*}] AS summaries,
       [x IN references | x {.*}] AS references,
       [x IN suggestions | x {.*}] AS suggestions
