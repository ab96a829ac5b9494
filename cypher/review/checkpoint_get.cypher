// params: track, scope_key
MATCH (c:ReviewCheckpoint {track: $track, scope_key: $scope_key})
RETURN c.doc AS doc, c.revision AS revision
