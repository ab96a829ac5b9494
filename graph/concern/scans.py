"""The ConcernScheduler's index-backed scans (seed 002 §十 调度策略).

Each scan is one named query over an index of `cypher/schema/020_concern.cypher`
(`concern_due` for due and timeout scans, `concern_schedule` for schedules). They return
the indexed properties only (`DueFacts`: no concern document is read or validated), and
the engine's `scheduler` functions derive each item's trigger and stable job id from them,
so the graph query and the pure rule agree on what is due.
"""

from __future__ import annotations

from datetime import datetime

from neo4j import Record

from engine.concern import scheduler
from engine.concern.model import ConcernStatus, ConcernType
from engine.concern.scheduler import DueFacts, ScheduledJob
from graph.base import Store
from graph.concern.codec import utc
from graph.temporal import from_epoch_us


def due_facts(records: list[Record]) -> list[DueFacts]:
    """The DueFacts of a scan's one record (its `due` list of indexed properties)."""
    return [
        DueFacts(
            concern_id=cid,
            type=ConcernType(kind),
            status=ConcernStatus(status),
            next_when=from_epoch_us(when),
            next_run_at=from_epoch_us(run_at),
        )
        for cid, kind, status, when, run_at in records[0]["due"]
    ]


class ConcernScans(Store):
    async def _scan(self, key: str, now: datetime, scope: str | None, limit: int) -> list[DueFacts]:
        return due_facts(await self.query(key, now=utc(now), scope=scope, limit=limit))

    async def due(
        self, now: datetime, *, scope: str | None = None, limit: int = 500
    ) -> list[ScheduledJob]:
        found = await self._scan("concern/scan_due", now, scope, limit)
        return scheduler.scan_due_concerns(found, now, limit)

    async def timeouts(
        self, now: datetime, *, scope: str | None = None, limit: int = 500
    ) -> list[ScheduledJob]:
        found = await self._scan("concern/scan_timeouts", now, scope, limit)
        return scheduler.scan_timeouts(found, now, limit)

    async def schedules(
        self, now: datetime, *, scope: str | None = None, limit: int = 500
    ) -> list[ScheduledJob]:
        found = await self._scan("concern/scan_schedules", now, scope, limit)
        return scheduler.scan_schedules(found, now, limit)

    async def count_due(self, now: datetime) -> int:
        records = await self.query("concern/count_due", now=utc(now))
        return int(records[0]["n"])
