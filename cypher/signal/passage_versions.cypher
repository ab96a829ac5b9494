// params: scope, keys
// The source versions a page of signals cites (Signal.passage), in one statement: each key is
// [source_id, version]; an absent version is absent (its excerpt says it is unavailable).
UNWIND $keys AS k
MATCH (sv:SourceVersion {scope: $scope, source_id: k[0], version: k[1]})
RETURN sv {.*} AS v
