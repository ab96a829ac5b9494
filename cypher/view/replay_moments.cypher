// params: scope
// The record moments of a scope: when a result was published or a person's correction
// (a new entity, relation or suggestion version) was recorded, a signal version, or an event
// a person's answer wrote via a concern. The replay slider snaps here.
CALL {
  MATCH (r:Result) WHERE r.scope = $scope AND r.recorded_at IS NOT NULL RETURN r.recorded_at AS at
  UNION
  MATCH (v:EntityVersion) WHERE v.scope = $scope AND v.recorded_at IS NOT NULL RETURN v.recorded_at AS at
  UNION
  MATCH (v:RelationVersion) WHERE v.scope = $scope AND v.recorded_at IS NOT NULL RETURN v.recorded_at AS at
  UNION
  MATCH (v:SignalVersion) WHERE v.scope = $scope AND v.recorded_at IS NOT NULL RETURN v.recorded_at AS at
  UNION
  MATCH (v:EventVersion) WHERE v.scope = $scope AND v.recorded_at IS NOT NULL AND v.via_concern IS NOT NULL
  RETURN v.recorded_at AS at
  UNION
  MATCH (v:SuggestionVersion) WHERE v.scope = $scope AND v.recorded_at IS NOT NULL RETURN v.recorded_at AS at
}
RETURN collect(DISTINCT at.epochMillis) AS rows
