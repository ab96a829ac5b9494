// A publish finds the current holder of a thing (cypher/story/current_holders_of.cypher,
// issue 28: a change of the responsible person) by the relation's `to` end.
CREATE INDEX relation_version_to_current IF NOT EXISTS FOR (v:RelationVersion) ON (v.to_id, v.retracted_at);
