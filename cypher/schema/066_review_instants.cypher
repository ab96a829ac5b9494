// Review instants as Neo4j DateTimes in UTC, like every other stored instant (DESIGN "Time";
// graph/temporal.py is the one codec). Review runs, their stage, batch and navigation
// records, heartbeat runs and plans, the review lease and the app settings were stored with
// their times as ISO-8601 text; each such text becomes the same instant as a DateTime in Z.
// Only text values match, so running a statement again changes nothing.
MATCH (n:SupervisionRun)
UNWIND ['created_at', 'updated_at', 'ended_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'});
MATCH (n:ReviewStage)
UNWIND ['started_at', 'ended_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'});
MATCH (n:ReviewBatch)
UNWIND ['committed_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'});
MATCH (n:ReviewNavigationNode)
UNWIND ['committed_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'});
MATCH (n:HeartbeatRun)
UNWIND ['slot', 'claimed_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'});
MATCH (n:HeartbeatPlan)
UNWIND ['created_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'});
MATCH (n:ReviewLease)
UNWIND ['acquired_at', 'expires_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'});
MATCH (n:AppSettings)
UNWIND ['updated_at'] AS k
WITH n, k, n[k] AS v
WHERE valueType(v) STARTS WITH 'STRING'
SET n[k] = datetime({datetime: datetime(v), timezone: 'Z'})
