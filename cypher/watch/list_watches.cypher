// params: scope, after_created_at, after_id, limit
// A page of a scope's watches, oldest first, keyset-paged on (created_at, id).
MATCH (w:Watch)
WHERE w.scope = $scope
  AND ($after_created_at IS NULL
       OR w.created_at > $after_created_at
       OR (w.created_at = $after_created_at AND w.id > $after_id))
RETURN w.id AS id
ORDER BY w.created_at, w.id
LIMIT $limit
