// A story's events by index (issue 14): the entities and relations lists of one story read
// the story's event versions first, bounded by the story, not the scope.
CREATE INDEX event_version_story IF NOT EXISTS FOR (v:EventVersion) ON (v.scope, v.story_id);
