// params: key, enabled, preferences, now
MERGE (s:AppSettings {key: $key})
SET s.heartbeatEnabled = $enabled, s.preferences = $preferences, s.updated_at = $now
RETURN s.heartbeatEnabled AS heartbeatEnabled
