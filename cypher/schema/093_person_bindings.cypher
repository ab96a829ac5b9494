// Person bindings (issue 28): identity nodes and immutable versions like every story object,
// with the indexes behind their lookups: the binding id (current and as-of reads), the scope
// page, the person entity a binding names, and what the agenda looks up when it decides
// (a signal's subject, the relations to an entity that say who is responsible for it, the
// concern person who corrected a target through a concern).
CREATE CONSTRAINT person_binding_id IF NOT EXISTS FOR (n:PersonBinding) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT person_binding_version_seq IF NOT EXISTS FOR (v:PersonBindingVersion) REQUIRE (v.id, v.seq) IS UNIQUE;
CREATE INDEX person_binding_version_id IF NOT EXISTS FOR (v:PersonBindingVersion) ON (v.id, v.retracted_at);
CREATE INDEX person_binding_version_scope_id IF NOT EXISTS FOR (v:PersonBindingVersion) ON (v.scope, v.id);
CREATE INDEX person_binding_version_entity IF NOT EXISTS FOR (v:PersonBindingVersion) ON (v.scope, v.entity_id);
CREATE INDEX person_binding_version_person IF NOT EXISTS FOR (v:PersonBindingVersion) ON (v.scope, v.person_id);
CREATE INDEX signal_version_subject IF NOT EXISTS FOR (v:SignalVersion) ON (v.scope, v.subject);
CREATE INDEX relation_version_to IF NOT EXISTS FOR (v:RelationVersion) ON (v.to_id);
