// params: scope, as_of, from_time, to_time, story_id
// A storyGraph window in one round trip (docs/rules/story-graph.md#time; docs/rules/story-graph.md):
// the event versions believed at $as_of with from <= at <= to (index: scope, at), the changes
// of those events, the entities they touch, the relations among those entities, the
// suggestions about and the references of all of them, the stage summaries overlapping the
// window, and the stories. engine.story.views.select_graph applies the remaining filters
// (validAt, removed relations), so this returns a superset of the answer and never more
// than the window's neighbourhood, however long the scope's history is.
// Every step seeks an index whose leading keys are the step's equality and whose next key is
// the as-of range (cypher/schema/063_story_window.cypher), so a step reads about the rows it
// keeps: ~19 db hits per returned object at bench scale 0.1 (bench/story_profile.py), most
// of them the property reads of the RETURN.
MATCH (ev:EventVersion)
USING INDEX SEEK ev:EventVersion(scope, at, retracted_at)
WHERE ev.scope = $scope AND ev.at >= $from_time AND ev.at <= $to_time
  AND ev.retracted_at > $as_of AND ev.recorded_at <= $as_of
  AND ($story_id IS NULL OR ev.story_id = $story_id)
WITH collect(ev) AS events
CALL (events) {
  UNWIND events AS ev
  MATCH (c:Change)
  USING INDEX SEEK c:Change(event_id, recorded_at)
  WHERE c.event_id = ev.id AND c.recorded_at <= $as_of
  RETURN collect(c) AS changes
}
CALL (changes) {
  UNWIND changes AS c
  WITH DISTINCT c.entity_id AS id
  RETURN collect(id) AS entity_ids
}
CALL (entity_ids) {
  UNWIND entity_ids AS id
  MATCH (v:EntityVersion)
  USING INDEX SEEK v:EntityVersion(id, retracted_at)
  WHERE v.id = id AND v.retracted_at > $as_of AND v.recorded_at <= $as_of AND v.scope = $scope
  RETURN collect(v) AS entities
}
CALL (entity_ids) {
  UNWIND entity_ids AS id
  MATCH (v:RelationVersion)
  USING INDEX SEEK v:RelationVersion(from_id, retracted_at)
  WHERE v.from_id = id AND v.retracted_at > $as_of AND v.to_id IN entity_ids
    AND v.recorded_at <= $as_of AND v.scope = $scope
  RETURN collect(v) AS relations
}
CALL () {
  MATCH (s:Summary)
  USING INDEX SEEK s:Summary(scope, interval_start)
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
  USING INDEX SEEK v:SuggestionVersion(target_id)
  WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN collect(v) AS suggestions
}
CALL (owners, suggestions) {
  UNWIND owners + [x IN suggestions | x.id] AS id
  MATCH (r:Reference {owner_id: id})
  USING INDEX SEEK r:Reference(owner_id)
  WHERE r.scope = $scope AND r.recorded_at <= $as_of
  RETURN collect(r) AS references
}
// include: story_lists
