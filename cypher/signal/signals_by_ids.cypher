// params: ids, as_of
// The versions of the signals $ids believed at $as_of, in one statement (Concern.signal for
// a page of concerns); the caller keeps only those of scopes it may read.
UNWIND $ids AS sid
MATCH (v:SignalVersion {id: sid})
WHERE v.recorded_at <= $as_of AND v.retracted_at > $as_of
RETURN v {.*} AS v
