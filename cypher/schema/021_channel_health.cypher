// Concern channel health: one node per (scope, channel), updated by outbox delivery.
CREATE CONSTRAINT channel_health_key IF NOT EXISTS FOR (h:ChannelHealth) REQUIRE (h.scope, h.channel) IS UNIQUE;
