// The watch heartbeat's cron finds the scopes that have enabled watches.
CREATE INDEX watch_status IF NOT EXISTS FOR (w:Watch) ON (w.status);
