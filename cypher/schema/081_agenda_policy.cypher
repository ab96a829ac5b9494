// The per-scope agenda policy (issue 28): one immutable node per version (the newest is
// current); the constraint's index serves the current-version lookup.
CREATE CONSTRAINT agenda_policy_version IF NOT EXISTS FOR (p:AgendaPolicyVersion) REQUIRE (p.scope, p.version) IS UNIQUE;
