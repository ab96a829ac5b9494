// params: id, note, worker_id
// A worker round-trip probe: written by the `probe` job, read back through the API.
MERGE (p:WorkerProbe {id: $id})
ON CREATE SET p.note = $note, p.worker_id = $worker_id, p.written_at = datetime(), p.runs = 1
ON MATCH SET p.runs = p.runs + 1
RETURN p.id AS id
