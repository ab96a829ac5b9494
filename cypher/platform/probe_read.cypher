// params: id
MATCH (p:WorkerProbe {id: $id})
RETURN p.id AS id, p.note AS note, p.worker_id AS worker_id, p.written_at AS written_at, p.runs AS runs
