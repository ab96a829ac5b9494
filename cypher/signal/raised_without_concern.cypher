// params: since, before, now, limit
// Current signals decided `raised` between $since and $before (record time) whose concern
// does not exist: the effect job enqueued after their publish was lost (a question answered
// meanwhile asks nobody any more).
MATCH (v:SignalVersion)
WHERE v.decision_kind = 'raised' AND v.recorded_at >= $since AND v.recorded_at < $before
  AND v.retracted_at > $now AND v.status <> 'answered'
  AND NOT EXISTS { MATCH (c:Concern) WHERE c.concern_id = v.decision_concern_id }
RETURN v.scope AS scope, v.id AS id
ORDER BY v.recorded_at
LIMIT $limit
