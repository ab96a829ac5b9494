// params: scope, kinds, statuses, forever, after_at, after_id, limit
// The inbox: a scope's pending suggestions of the $kinds ('field', 'difference')
// and its supervision runs of the $statuses ('failed', 'paused': stopped, waiting for a
// person), newest first, after the keyset (time, id) descending, cut at $limit. Each side is
// read through its own index (migration 092) in keyset order and cut at $limit before the
// two are merged: a page costs what the scope has waiting, never its history.
CALL {
  MATCH (v:SuggestionVersion)
  USING INDEX v:SuggestionVersion(scope, status, retracted_at, recorded_at)
  WHERE v.scope = $scope AND v.status = 'pending' AND v.retracted_at = $forever
    AND v.recorded_at <= $after_at AND v.kind IN $kinds
    AND (v.recorded_at < $after_at OR (v.recorded_at = $after_at AND v.id < $after_id))
  WITH v
  ORDER BY v.recorded_at DESC, v.id DESC
  LIMIT $limit
  // the target's current version: the seenVersion to pass back when acting on the item
  OPTIONAL MATCH (:StoryObject {id: v.target_id})-[:VERSION]->(t)
    WHERE t.retracted_at = $forever
  RETURN v.recorded_at AS at, v.id AS id, v {.*} AS v, t.seq AS target_seq, null AS run
  UNION ALL
  MATCH (r:SupervisionRun)
  USING INDEX r:SupervisionRun(scope, status, updated_at)
  WHERE r.scope = $scope AND r.status IN $statuses AND r.updated_at <= $after_at
    AND r.stopped = true  // still stopping (pausing): not yet waiting for anyone
    AND (r.updated_at < $after_at OR r.id < $after_id)
  WITH r
  ORDER BY r.updated_at DESC, r.id DESC
  LIMIT $limit
  RETURN r.updated_at AS at, r.id AS id, null AS v, null AS target_seq,
         r {.id, .status, .trigger, .mode, .created_at, .updated_at, .error, .doc} AS run
}
RETURN v, target_seq, run
ORDER BY at DESC, id DESC
LIMIT $limit
