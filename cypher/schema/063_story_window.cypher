// The window read (cypher/story/window_graph.cypher, issue 14 item 5): each of its steps
// seeks an index on the step's key followed by the as-of bound, so versions that are not
// current at as_of are skipped inside the index instead of being read and filtered.
CREATE INDEX event_version_at_current IF NOT EXISTS FOR (v:EventVersion) ON (v.scope, v.at, v.retracted_at);
CREATE INDEX change_event IF NOT EXISTS FOR (n:Change) ON (n.event_id, n.recorded_at);
CREATE INDEX entity_version_id_current IF NOT EXISTS FOR (v:EntityVersion) ON (v.id, v.retracted_at);
CREATE INDEX relation_version_from_current IF NOT EXISTS FOR (v:RelationVersion) ON (v.from_id, v.retracted_at);
