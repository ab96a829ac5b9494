// params: limit
// Scopes whose watches the heartbeat checks each slot (a standing check; docs/rules/watches.md).
MATCH (w:Watch)
WHERE w.status = 'enabled'
RETURN DISTINCT w.scope AS scope
ORDER BY scope
LIMIT $limit
