// The concern the agenda raised for a signal (issue 28), found from the signal's side.
CREATE INDEX concern_signal_id IF NOT EXISTS FOR (c:Concern) ON (c.signal_id);
