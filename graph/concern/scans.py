"""The ConcernScheduler's index-backed scans (seed 002 §十 调度策略).

Each scan is one named query over an index of `cypher/schema/020_concern.cypher`
(`concern_due` for due and timeout scans, `concern_schedule` for schedules); the engine's
`scheduler` functions then derive each item's trigger and stable job id from the loaded
concerns, so the graph query and the pure rule agree on what is due.
"""

from __future__ import annotations

from datetime import datetime

from neo4j import AsyncDriver

from engine.concern import scheduler
from engine.concern.model import Concern
from engine.concern.scheduler import ScheduledJob
from graph.concern.codec import concern_from_doc, utc
from graph.queries import queries

SCAN_QUERIES = {
    "due": "concern/scan_due",
    "timeouts": "concern/scan_timeouts",
    "schedules": "concern/scan_schedules",
}


async def _scan(
    driver: AsyncDriver, database: str, key: str, now: datetime, scope: str | None, limit: int
) -> list[Concern]:
    records, _, _ = await driver.execute_query(
        queries()[key], now=utc(now), scope=scope, limit=limit, database_=database, routing_="r"
    )
    return [concern_from_doc(r["doc"]) for r in records]


async def scan_due_concerns(
    driver: AsyncDriver, database: str, now: datetime, *, scope: str | None = None,
    limit: int = 500,
) -> list[ScheduledJob]:
    found = await _scan(driver, database, SCAN_QUERIES["due"], now, scope, limit)
    return scheduler.scan_due_concerns(found, now, limit)


async def scan_timeouts(
    driver: AsyncDriver, database: str, now: datetime, *, scope: str | None = None,
    limit: int = 500,
) -> list[ScheduledJob]:
    found = await _scan(driver, database, SCAN_QUERIES["timeouts"], now, scope, limit)
    return scheduler.scan_timeouts(found, now, limit)


async def scan_schedules(
    driver: AsyncDriver, database: str, now: datetime, *, scope: str | None = None,
    limit: int = 500,
) -> list[ScheduledJob]:
    found = await _scan(driver, database, SCAN_QUERIES["schedules"], now, scope, limit)
    return scheduler.scan_schedules(found, now, limit)


async def count_due(driver: AsyncDriver, database: str, now: datetime) -> int:
    records, _, _ = await driver.execute_query(
        queries()["concern/count_due"], now=utc(now), database_=database, routing_="r"
    )
    return int(records[0]["n"])
