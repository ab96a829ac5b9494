// params: limit
// Scopes whose watches the heartbeat checks each slot (seed 000 持续关注: a standing check).
MATCH (w:Watch)
WHERE w.status = 'enabled'
RETURN DISTINCT w.scope AS scope
ORDER BY scope
LIMIT $limit
