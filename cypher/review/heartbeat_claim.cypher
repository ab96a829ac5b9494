// params: row
// The atomic claim: MERGE on the claim key (unique). Two workers claiming the same plan slot
// meet on one node; only the one whose id was written created it.
MERGE (h:HeartbeatRun {claim_key: $row.claim_key})
ON CREATE SET h += $row
RETURN h.id = $row.id AS created, h.id AS id
