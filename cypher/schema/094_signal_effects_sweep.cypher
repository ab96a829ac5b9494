// The reconciler's sweep of raised signals whose concern is missing (issue 28: the effect
// job enqueued after the publish was lost): raised signals by record time.
CREATE INDEX signal_version_decided IF NOT EXISTS FOR (v:SignalVersion) ON (v.decision_kind, v.recorded_at);
