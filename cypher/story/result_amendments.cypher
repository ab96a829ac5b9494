// params: result_id
MATCH (a:ResultAmendment)
WHERE a.result_id = $result_id
RETURN a {.*} AS a
ORDER BY a.recorded_at, a.id
