// params: rows
// Cross-project read-only grants for single bound documents; MERGE keeps a re-issue idempotent.
UNWIND $rows AS row
MERGE (g:WatchGrant {id: row.id})
ON CREATE SET g = row
RETURN count(g) AS grants
