// params: scope, as_of, cap
// How many events, entities and relations a whole-scope read would load, counted up to $cap
// each (an index range read that stops there): storyGraph/graphView without a window or a
// story refuse a scope above the configured size before loading anything.
CALL () {
  MATCH (v:EventVersion)
  WHERE v.scope = $scope AND v.retracted_at > $as_of AND v.recorded_at <= $as_of
  WITH v LIMIT $cap
  RETURN count(v) AS events
}
CALL () {
  MATCH (v:EntityVersion)
  WHERE v.scope = $scope AND v.retracted_at > $as_of AND v.recorded_at <= $as_of
  WITH v LIMIT $cap
  RETURN count(v) AS entities
}
CALL () {
  MATCH (v:RelationVersion)
  WHERE v.scope = $scope AND v.retracted_at > $as_of AND v.recorded_at <= $as_of
  WITH v LIMIT $cap
  RETURN count(v) AS relations
}
RETURN events, entities, relations
