// params: scope, statuses, priorities, person_id, after_created_at, after_id, limit
// concerns(...): one agenda scope, newest first, filtered before paging, keyset-paged after
// (created_at DESC, concern_id) so the next page starts where the last one ended.
// The page walks Concern(scope, created_at) backwards from the cursor and stops at `limit`
// (plus the rows the filters skip): its cost grows with the page, not with the scope. The
// planner takes the index's order only when the ORDER BY names the equality key (c.scope)
// too, and seeks from the cursor only with a range on created_at (the newest possible
// instant when there is no cursor).
MATCH (c:Concern)
USING INDEX SEEK c:Concern(scope, created_at)
WHERE c.scope = $scope
  AND c.created_at <= coalesce($after_created_at, datetime('+999999999-12-31T23:59:59.999999999Z'))
  AND ($statuses IS NULL OR c.status IN $statuses)
  AND ($priorities IS NULL OR c.priority IN $priorities)
  AND ($person_id IS NULL OR EXISTS { (c)-[:INVOLVES]->(:Person {person_id: $person_id}) })
  AND ($after_created_at IS NULL
       OR c.created_at < $after_created_at
       OR (c.created_at = $after_created_at AND c.concern_id > $after_id))
RETURN c.doc AS doc
ORDER BY c.scope DESC, c.created_at DESC, c.concern_id
LIMIT $limit
