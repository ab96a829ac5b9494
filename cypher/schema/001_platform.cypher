// Platform: worker probes written by the e2e job round-trip, and app settings.
CREATE CONSTRAINT worker_probe_id IF NOT EXISTS FOR (p:WorkerProbe) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT app_settings_key IF NOT EXISTS FOR (s:AppSettings) REQUIRE s.key IS UNIQUE;
