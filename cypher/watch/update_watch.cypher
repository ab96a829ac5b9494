// params: scope, id, props
// Status, execution gate, record location, resume summary: scalar fields of the watch.
MATCH (w:Watch {id: $id})
WHERE w.scope = $scope
SET w += $props
RETURN w.id AS id
