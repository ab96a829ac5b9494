// params: scope, as_of, story_id
// The entities a story touches (the storyId rule of storyGraph; docs/rules/story-graph.md): the changes of
// the story's event versions believed at $as_of. Bounded by the story, not the scope.
MATCH (ev:EventVersion)
USING INDEX SEEK ev:EventVersion(scope, story_id)
WHERE ev.scope = $scope AND ev.story_id = $story_id
  AND ev.recorded_at <= $as_of AND ev.retracted_at > $as_of
MATCH (:Event {id: ev.id})-[:CHANGES]->(c:Change)
WHERE c.scope = $scope AND c.recorded_at <= $as_of
RETURN collect(DISTINCT c.entity_id) AS ids
