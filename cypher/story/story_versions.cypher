// params: scope, ids
// Every recorded version of the given Story ids in this scope (another scope's id finds nothing).
MATCH (v:StoryVersion)
WHERE v.id IN $ids AND v.scope = $scope
RETURN v {.*} AS v
ORDER BY v.id, v.seq
