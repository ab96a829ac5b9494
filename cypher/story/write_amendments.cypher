// params: rows
// A person's edit carried into results they explicitly chose.
UNWIND $rows AS row
MATCH (r:Result {id: row.result_id})
CREATE (a:ResultAmendment)
SET a = row
CREATE (r)-[:AMENDED]->(a)
RETURN count(a) AS written
