// params: scope, since, until, after_at, after_id, bookkeeping
// What changed in a scope's story graph between two record times ($since, $until], after
// the keyset ($after_at, $after_id): one row per changed object with `kind`, `id`, `at` (its
// last change in the window), `before` (the version believed at $since, null if it did not
// exist yet) and `after` (the one believed at $until). Every version written in the window
// is found through the (scope, recorded_at) index of its label; the version before the
// window is the predecessor (seq - 1) of the first one written in it, the version after is
// the last one (their (id, seq) constraint). Versions are never retracted without a
// successor, so the versions recorded in the window are all the changes. Summaries are
// recorded once: added. Signals are versioned like the rest: a new signal is
// added, a status change (kept, changed, settled, unresolved) or a decision recorded on it
// is a revision. An object whose value at $until equals its value at $since (every property
// but its kind's $bookkeeping ones: seq, record times, actor, why, result, and the fields the
// kind keeps for the engine alone) is no change and is
// left out. Shared by story/diff_page and story/diff_count.
CALL {
  MATCH (v:StoryVersion)
  WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
  WITH v.id AS id, min(v.seq) AS first_seq, max(v.seq) AS last_seq, max(v.recorded_at) AS at
  WHERE at > $after_at OR (at = $after_at AND id > $after_id)
  OPTIONAL MATCH (b:StoryVersion {id: id, seq: first_seq - 1})
  MATCH (a:StoryVersion {id: id, seq: last_seq})
  WITH id, at, a, b
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping.story
                         AND ((a[k] IS NULL) <> (b[k] IS NULL) OR a[k] <> b[k]))
  RETURN 'story' AS kind, id, at, b {.*} AS before, a {.*} AS after
  UNION ALL
  MATCH (v:EventVersion)
  WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
  WITH v.id AS id, min(v.seq) AS first_seq, max(v.seq) AS last_seq, max(v.recorded_at) AS at
  WHERE at > $after_at OR (at = $after_at AND id > $after_id)
  OPTIONAL MATCH (b:EventVersion {id: id, seq: first_seq - 1})
  MATCH (a:EventVersion {id: id, seq: last_seq})
  WITH id, at, a, b
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping.event
                         AND ((a[k] IS NULL) <> (b[k] IS NULL) OR a[k] <> b[k]))
  RETURN 'event' AS kind, id, at, b {.*} AS before, a {.*} AS after
  UNION ALL
  MATCH (v:EntityVersion)
  WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
  WITH v.id AS id, min(v.seq) AS first_seq, max(v.seq) AS last_seq, max(v.recorded_at) AS at
  WHERE at > $after_at OR (at = $after_at AND id > $after_id)
  OPTIONAL MATCH (b:EntityVersion {id: id, seq: first_seq - 1})
  MATCH (a:EntityVersion {id: id, seq: last_seq})
  WITH id, at, a, b
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping.entity
                         AND ((a[k] IS NULL) <> (b[k] IS NULL) OR a[k] <> b[k]))
  RETURN 'entity' AS kind, id, at, b {.*} AS before, a {.*} AS after
  UNION ALL
  MATCH (v:RelationVersion)
  WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
  WITH v.id AS id, min(v.seq) AS first_seq, max(v.seq) AS last_seq, max(v.recorded_at) AS at
  WHERE at > $after_at OR (at = $after_at AND id > $after_id)
  OPTIONAL MATCH (b:RelationVersion {id: id, seq: first_seq - 1})
  MATCH (a:RelationVersion {id: id, seq: last_seq})
  WITH id, at, a, b
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping.relation
                         AND ((a[k] IS NULL) <> (b[k] IS NULL) OR a[k] <> b[k]))
  RETURN 'relation' AS kind, id, at, b {.*} AS before, a {.*} AS after
  UNION ALL
  MATCH (v:SuggestionVersion)
  WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
  WITH v.id AS id, min(v.seq) AS first_seq, max(v.seq) AS last_seq, max(v.recorded_at) AS at
  WHERE at > $after_at OR (at = $after_at AND id > $after_id)
  OPTIONAL MATCH (b:SuggestionVersion {id: id, seq: first_seq - 1})
  MATCH (a:SuggestionVersion {id: id, seq: last_seq})
  WITH id, at, a, b
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping.suggestion
                         AND ((a[k] IS NULL) <> (b[k] IS NULL) OR a[k] <> b[k]))
  RETURN 'suggestion' AS kind, id, at, b {.*} AS before, a {.*} AS after
  UNION ALL
  MATCH (v:SignalVersion)
  WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
  WITH v.id AS id, min(v.seq) AS first_seq, max(v.seq) AS last_seq, max(v.recorded_at) AS at
  WHERE at > $after_at OR (at = $after_at AND id > $after_id)
  OPTIONAL MATCH (b:SignalVersion {id: id, seq: first_seq - 1})
  MATCH (a:SignalVersion {id: id, seq: last_seq})
  WITH id, at, a, b
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping.signal
                         AND ((a[k] IS NULL) <> (b[k] IS NULL) OR a[k] <> b[k]))
  RETURN 'signal' AS kind, id, at, b {.*} AS before, a {.*} AS after
  UNION ALL
  MATCH (s:Summary)
  WHERE s.scope = $scope AND s.recorded_at > $since AND s.recorded_at <= $until
    AND (s.recorded_at > $after_at OR (s.recorded_at = $after_at AND s.id > $after_id))
  RETURN 'summary' AS kind, s.id AS id, s.recorded_at AS at, null AS before, s {.*} AS after
}
