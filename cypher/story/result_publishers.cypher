// params: scope, ids
// Who published each of the results $ids (its actor label): a change or a stage summary has
// no author of its own, its result's publisher wrote it. Seeks the result id constraint.
UNWIND $ids AS id
MATCH (r:Result {id: id})
WHERE r.scope = $scope
RETURN r.id AS id, r.by AS by
