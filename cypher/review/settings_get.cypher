// params: key
// The heartbeat app switch of one deployment; no node means never saved (false).
MATCH (s:AppSettings {key: $key})
RETURN s.heartbeatEnabled AS heartbeatEnabled, s.preferences AS preferences
