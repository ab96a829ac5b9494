// Signals (issue 28): identity nodes and immutable versions like every story object, with
// the indexes behind their lookups: id, scope + record time (as-of reads), kind and status.
CREATE CONSTRAINT signal_id IF NOT EXISTS FOR (n:Signal) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT signal_version_seq IF NOT EXISTS FOR (v:SignalVersion) REQUIRE (v.id, v.seq) IS UNIQUE;
CREATE INDEX signal_version_id IF NOT EXISTS FOR (v:SignalVersion) ON (v.id);
CREATE INDEX signal_version_asof IF NOT EXISTS FOR (v:SignalVersion) ON (v.scope, v.recorded_at);
CREATE INDEX signal_version_current IF NOT EXISTS FOR (v:SignalVersion) ON (v.scope, v.retracted_at);
CREATE INDEX signal_version_result IF NOT EXISTS FOR (v:SignalVersion) ON (v.via_result);
CREATE INDEX signal_version_scope_id IF NOT EXISTS FOR (v:SignalVersion) ON (v.scope, v.id);
