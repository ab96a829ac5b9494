// params: deployment, config_id, kept, before, limit
// Removes up to `limit` finished heartbeat runs, with the reports stored on them, claimed
// before `before` (心跳报告沿用计划的历史保留和删除规则; docs/rules/reviews.md): those of plan `config_id`,
// or, when it is null, those of no saved plan (`kept`: the saved plans' ids). A run still
// claimed is never removed. Checkpoints, supervision runs and results are other nodes and
// stay: removing a report never resets source progress, and a supervision run whose
// heartbeat is gone reads in activity as a row of its own.
MATCH (h:HeartbeatRun)
USING INDEX SEEK h:HeartbeatRun(deployment, claimed_at)
WHERE h.deployment = $deployment AND h.claimed_at < $before AND h.state <> 'claimed'
  AND CASE WHEN $config_id IS NULL THEN NOT coalesce(h.config_id, '') IN $kept
           ELSE h.config_id = $config_id END
WITH h
LIMIT $limit
DETACH DELETE h
RETURN count(*) AS deleted
