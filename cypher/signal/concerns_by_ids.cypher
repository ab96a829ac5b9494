// params: scope, ids
// The concerns of $scope among $ids in one statement (the concern that brought a page of
// versions, `throughConcern`); another scope's concern is absent, like a missing one.
UNWIND $ids AS cid
MATCH (c:Concern {concern_id: cid})
WHERE c.scope = $scope
RETURN c.concern_id AS id, c.doc AS doc
