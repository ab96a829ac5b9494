// params: scope, as_of, from_time, to_time, story_id
// The entities a window touches (the window rule of storyGraph; docs/rules/story-graph.md): the changes of
// the event versions believed at $as_of with from <= at <= to (and of one story when
// $story_id is set). Bounded by the window's events, not the scope.
MATCH (ev:EventVersion)
USING INDEX SEEK ev:EventVersion(scope, at, retracted_at)
WHERE ev.scope = $scope AND ev.at >= $from_time AND ev.at <= $to_time
  AND ev.retracted_at > $as_of AND ev.recorded_at <= $as_of
  AND ($story_id IS NULL OR ev.story_id = $story_id)
MATCH (c:Change)
USING INDEX SEEK c:Change(event_id, recorded_at)
WHERE c.event_id = ev.id AND c.recorded_at <= $as_of
RETURN collect(DISTINCT c.entity_id) AS ids
