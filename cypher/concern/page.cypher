// params: scope, statuses, priorities, person_id, after_created_at, after_id, limit
// concerns(...): one agenda scope, newest first, filtered before paging, keyset-paged after
// (created_at DESC, concern_id) so the next page starts where the last one ended.
MATCH (c:Concern)
WHERE c.scope = $scope
  AND ($statuses IS NULL OR c.status IN $statuses)
  AND ($priorities IS NULL OR c.priority IN $priorities)
  AND ($person_id IS NULL OR EXISTS { (c)-[:INVOLVES]->(:Person {person_id: $person_id}) })
  AND ($after_created_at IS NULL
       OR c.created_at < $after_created_at
       OR (c.created_at = $after_created_at AND c.concern_id > $after_id))
RETURN c.doc AS doc
ORDER BY c.created_at DESC, c.concern_id
LIMIT $limit
