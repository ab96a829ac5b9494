// params: scope, kinds, forever, after_at, after_id, limit
// The inbox (issue 29): a scope's pending suggestions of the $kinds ('field', 'difference'),
// newest first, after the keyset (recorded_at, id) descending, cut at $limit. Read through
// the (scope, retracted_at) index of current suggestion versions: a page costs what the
// scope has pending, never its history.
MATCH (v:SuggestionVersion)
USING INDEX v:SuggestionVersion(scope, retracted_at)
WHERE v.scope = $scope AND v.retracted_at = $forever AND v.status = 'pending'
  AND v.kind IN $kinds
  AND (v.recorded_at < $after_at OR (v.recorded_at = $after_at AND v.id < $after_id))
WITH v
ORDER BY v.recorded_at DESC, v.id DESC
LIMIT $limit
// the target's current version: the seenVersion to pass back when acting on the item
OPTIONAL MATCH (:StoryObject {id: v.target_id})-[:VERSION]->(t)
  WHERE t.retracted_at = $forever
RETURN v {.*} AS v, t.seq AS target_seq
ORDER BY v.recorded_at DESC, v.id DESC
