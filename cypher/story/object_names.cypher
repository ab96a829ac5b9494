// params: scope, as_of, ids
// What a person calls each of the objects $ids as believed at $as_of: an entity's or a
// story's name, an event's title, a relation's ends and type (its ends are named by
// story/entity_names). Each kind seeks its id index.
UNWIND $ids AS id
CALL (id) {
  MATCH (v:EntityVersion) WHERE v.id = id AND v.scope = $scope
    AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN v.name AS name, null AS from_id, null AS type, null AS to_id
  UNION
  MATCH (v:EventVersion) WHERE v.id = id AND v.scope = $scope
    AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN v.title AS name, null AS from_id, null AS type, null AS to_id
  UNION
  MATCH (v:StoryVersion) WHERE v.id = id AND v.scope = $scope
    AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN v.name AS name, null AS from_id, null AS type, null AS to_id
  UNION
  MATCH (v:RelationVersion) WHERE v.id = id AND v.scope = $scope
    AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
  RETURN null AS name, v.from_id AS from_id, v.type AS type, v.to_id AS to_id
}
RETURN id, name, from_id, type, to_id
