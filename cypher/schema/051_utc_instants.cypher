// Every stored instant in UTC (DESIGN "Time"). Neo4j orders two datetimes of one instant by
// their offset and never calls them equal (10:10+08:00 = 02:10Z is false, and so is <=), so a
// value written with +08:00 was missed by a read at the same instant written with Z. Writers
// send UTC since this migration (graph/temporal.py); this rewrites what was stored before:
// every datetime property (and list of datetimes) of every node and relationship whose zone
// is not Z becomes the same instant in Z. A one-off full scan; nothing else changes.
MATCH (n)
UNWIND keys(n) AS k
WITH n, k, n[k] AS v
WHERE (valueType(v) STARTS WITH 'ZONED DATETIME' AND v.timezone <> 'Z')
   OR (valueType(v) STARTS WITH 'LIST<ZONED DATETIME' AND any(x IN v WHERE x.timezone <> 'Z'))
SET n[k] = CASE WHEN valueType(v) STARTS WITH 'LIST'
                THEN [x IN v | datetime({datetime: x, timezone: 'Z'})]
                ELSE datetime({datetime: v, timezone: 'Z'}) END;
MATCH ()-[r]->()
UNWIND keys(r) AS k
WITH r, k, r[k] AS v
WHERE (valueType(v) STARTS WITH 'ZONED DATETIME' AND v.timezone <> 'Z')
   OR (valueType(v) STARTS WITH 'LIST<ZONED DATETIME' AND any(x IN v WHERE x.timezone <> 'Z'))
SET r[k] = CASE WHEN valueType(v) STARTS WITH 'LIST'
                THEN [x IN v | datetime({datetime: x, timezone: 'Z'})]
                ELSE datetime({datetime: v, timezone: 'Z'}) END
