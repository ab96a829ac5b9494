// Single-property lookups by watch and by scope: the composite indexes of 030/031 serve
// only reads that constrain every property, while lists and loaders match on the first.
CREATE INDEX watch_scope_only IF NOT EXISTS FOR (w:Watch) ON (w.scope);
CREATE INDEX watch_observation_watch_only IF NOT EXISTS FOR (o:WatchObservation) ON (o.watch_id);
CREATE INDEX watch_checkpoint_watch_only IF NOT EXISTS FOR (c:WatchCheckpoint) ON (c.watch_id);
CREATE INDEX watch_receipt_watch_only IF NOT EXISTS FOR (r:WatchReceipt) ON (r.watch_id);
