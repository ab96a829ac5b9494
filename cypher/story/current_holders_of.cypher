// params: scope, ids, types, forever
// The current relations of single-holder types ($types: responsible_for) whose thing (to_id)
// is among the given entities, with the holder's current name (publish context: another
// holder stated for a thing is a change of holder, engine/story/corrections.holder_change).
// Index: RelationVersion(to_id, retracted_at), EntityVersion(id, retracted_at).
UNWIND $ids AS id
MATCH (v:RelationVersion {to_id: id, retracted_at: $forever})
WHERE v.scope = $scope AND v.type IN $types
OPTIONAL MATCH (h:EntityVersion {id: v.from_id, retracted_at: $forever})
RETURN v {.*} AS v, coalesce(h.name, v.from_id) AS holder
