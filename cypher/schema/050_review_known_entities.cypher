// Known entities of a review (cypher/review/known_entities): entity versions by name prefix
// within one story scope.
CREATE INDEX entity_version_name IF NOT EXISTS FOR (v:EntityVersion) ON (v.scope, v.name);
