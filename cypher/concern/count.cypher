// params: scope, statuses, priorities, person_id
// totalCount of concerns(...): the same filters as concern/page, counted only when selected.
MATCH (c:Concern)
WHERE c.scope = $scope
  AND ($statuses IS NULL OR c.status IN $statuses)
  AND ($priorities IS NULL OR c.priority IN $priorities)
  AND ($person_id IS NULL OR EXISTS { (c)-[:INVOLVES]->(:Person {person_id: $person_id}) })
RETURN count(c) AS total
