// params: scope, rows
// Signal.concern for a page of signals in one statement: for each row {signal_id,
// concern_id} the concern the agenda's decision names (raised or supplemented), else the
// concern raised for that signal (Concern.signal_id, indexed); only concerns of $scope.
UNWIND $rows AS row
CALL {
  WITH row
  OPTIONAL MATCH (named:Concern {concern_id: row.concern_id})
  WHERE named.scope = $scope
  OPTIONAL MATCH (raised:Concern {signal_id: row.signal_id})
  WHERE raised.scope = $scope
  RETURN coalesce(named, raised) AS c
  LIMIT 1
}
WITH row, c WHERE c IS NOT NULL
RETURN row.signal_id AS signal_id, c.doc AS doc
