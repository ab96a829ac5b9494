// params: id, scope, by, now, missing
// An embed run (a background job or the backfill command) starts: its progress record.
CREATE (r:EmbedRun {id: $id, scope: $scope, by: $by, started_at: $now, status: 'running',
                    embedded: 0, missing: $missing})
RETURN r.id AS id
