// The hand-offs of one partner session (its MCP resource, cypher/watch/handoffs_of_session).
CREATE INDEX watch_handoff_session IF NOT EXISTS FOR (h:WatchHandOff) ON (h.session_id, h.created_at);
