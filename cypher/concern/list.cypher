// params: scope, statuses, priorities, person_id, skip, limit
// concerns(...): one agenda scope, newest first, filtered before paging.
MATCH (c:Concern {scope: $scope})
WHERE ($statuses IS NULL OR c.status IN $statuses)
  AND ($priorities IS NULL OR c.priority IN $priorities)
  AND ($person_id IS NULL OR EXISTS { (c)-[:INVOLVES]->(:Person {person_id: $person_id}) })
WITH c ORDER BY c.created_at DESC, c.concern_id
WITH collect(c.doc) AS docs
RETURN size(docs) AS total, docs[$skip..$skip + $limit] AS page
