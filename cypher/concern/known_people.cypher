// params: scope, person_ids, now
// Which of the given person ids the scope knows: a registered person (upsertPerson) or a
// current person binding (bindPerson, a source's speakers).
UNWIND $person_ids AS pid
OPTIONAL MATCH (p:Person {scope: $scope, person_id: pid})
OPTIONAL MATCH (v:PersonBindingVersion {scope: $scope, person_id: pid})
  WHERE v.retracted_at > $now
WITH pid, p, count(v) AS bound
WHERE p IS NOT NULL OR bound > 0
RETURN pid AS person_id
