// params: scope
// Active watches of a scope with their latest observation (docs/rules/watches.md).
MATCH (w:Watch)
WHERE w.scope = $scope AND w.status = 'enabled'
OPTIONAL CALL (w) {
  MATCH (o:WatchObservation {watch_id: w.id})
  WHERE o.scope = $scope
  RETURN o
  ORDER BY o.observed_at DESC, o.id DESC
  LIMIT 1
}
RETURN w.id AS id, w.last_checked_at AS last_checked_at,
       w.closed_observation_id AS closed_observation_id,
       o.id AS observation_id, o.outcome AS outcome
ORDER BY w.created_at, w.id
