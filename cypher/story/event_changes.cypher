// params: scope, ids
// The changes stored events already record (publish context of a result that reuses them):
// sought from each event by its id, so the cost follows the named events, not the scope.
UNWIND $ids AS id
MATCH (:Event {id: id})-[:CHANGES]->(c:Change)
WHERE c.scope = $scope
RETURN c.id AS id, c.event_id AS event_id, c.entity_id AS entity_id, c.kind AS kind
