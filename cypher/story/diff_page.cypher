// params: scope, since, until, after_at, after_id, limit, bookkeeping
// What changed in a scope's story graph between two record times ($since, $until]: per
// object, the version believed at $since (`before`, null if it did not exist yet) and the one
// believed at $until (`after`). Every version written in the window is found through the
// (scope, recorded_at) index of its label; the version before the window is the
// predecessor (seq - 1) of the first one written in it, the version after is the last one
// (their (id, seq) constraint). Versions are never retracted without a successor, so the
// versions recorded in the window are all the changes. Summaries are recorded once: added.
// Signals (issue 28) are versioned like the rest: a new signal is added, a status change
// (kept, changed, settled, unresolved) or a decision recorded on it is a revision.
// Ordered by (the object's last change in the window, id) after the keyset cursor and cut at
// $limit: the cost grows with the changes in the window, not with the scope's history.
// An object whose value at $until equals its value at $since (every property but the
// $bookkeeping ones: seq, record times, actor, why, result) is no change and is left out
// before the page is cut. engine/story/diff.py classifies each row and lists its fields.
CALL {
  MATCH (v:StoryVersion)
  WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
  WITH v.id AS id, min(v.seq) AS first_seq, max(v.seq) AS last_seq, max(v.recorded_at) AS at
  WHERE at > $after_at OR (at = $after_at AND id > $after_id)
  OPTIONAL MATCH (b:StoryVersion {id: id, seq: first_seq - 1})
  MATCH (a:StoryVersion {id: id, seq: last_seq})
  WITH id, at, a, b
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping
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
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping
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
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping
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
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping
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
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping
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
  WHERE b IS NULL OR any(k IN keys(a) + keys(b) WHERE NOT k IN $bookkeeping
                         AND ((a[k] IS NULL) <> (b[k] IS NULL) OR a[k] <> b[k]))
  RETURN 'signal' AS kind, id, at, b {.*} AS before, a {.*} AS after
  UNION ALL
  MATCH (s:Summary)
  WHERE s.scope = $scope AND s.recorded_at > $since AND s.recorded_at <= $until
    AND (s.recorded_at > $after_at OR (s.recorded_at = $after_at AND s.id > $after_id))
  RETURN 'summary' AS kind, s.id AS id, s.recorded_at AS at, null AS before, s {.*} AS after
}
WITH kind, id, at, before, after
ORDER BY at, id
LIMIT $limit
RETURN kind, id, at.epochMillis * 1000 + at.microsecond % 1000 AS at, before, after
