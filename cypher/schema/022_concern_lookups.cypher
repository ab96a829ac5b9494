// Index-backed lookups by scope: the scope's owner (老板) and a scope's channel health.
CREATE INDEX person_owner IF NOT EXISTS FOR (p:Person) ON (p.scope, p.is_owner);
CREATE INDEX channel_health_scope IF NOT EXISTS FOR (h:ChannelHealth) ON (h.scope);
