// The versions a concern's answer wrote (issue 28: `via_concern`, by the person who answered),
// found from the concern's side: the chain's last step (an event or a correction) in the graph
// view and the Neo4j Browser saved query `signal_chain.cypher`.
CREATE INDEX event_version_via_concern IF NOT EXISTS FOR (v:EventVersion) ON (v.via_concern);
CREATE INDEX entity_version_via_concern IF NOT EXISTS FOR (v:EntityVersion) ON (v.via_concern);
CREATE INDEX relation_version_via_concern IF NOT EXISTS FOR (v:RelationVersion) ON (v.via_concern);
CREATE INDEX suggestion_version_via_concern IF NOT EXISTS FOR (v:SuggestionVersion) ON (v.via_concern);
CREATE INDEX signal_version_via_concern IF NOT EXISTS FOR (v:SignalVersion) ON (v.via_concern);
