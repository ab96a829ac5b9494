"""The ConcernScheduler's index-backed scans (docs/rules/concerns.md).

Each scan is one named query over an index that holds every property it reads
(`cypher/schema/068_concern_scan_values.cypher`: `concern_due_values` for due and timeout
scans, `concern_schedule_values` for schedules), so no concern node is read. A scan of
one scope (a scheduler run limited to it) is the `<key>_in_scope` query, whose index leads
with the scope (`069_concern_scan_in_scope`): it never reads another scope's backlog. A
scan answers two parallel lists in one record, the due concerns' ids and their due instants
as epoch microseconds (a record per row costs the driver ~60 µs, a DateTime value ~30 µs),
and each item becomes a `ScheduledJob` of the scan's trigger kind; its trigger and job id
are derived when it is enqueued. The pure rule of each scan is `engine.concern.scheduler.select`.
"""

from __future__ import annotations

from datetime import datetime

from engine.concern.scheduler import ScheduledJob, TriggerKind
from graph.base import Store
from graph.concern.codec import utc

# Each scan's named queries: over every scope, and the same scan in one scope.
SCANS: dict[TriggerKind, tuple[str, str]] = {
    TriggerKind.NEXT_ACTION_DUE: ("concern/scan_due", "concern/scan_due_in_scope"),
    TriggerKind.TIMEOUT: ("concern/scan_timeouts", "concern/scan_timeouts_in_scope"),
    TriggerKind.SCHEDULE_DUE: ("concern/scan_schedules", "concern/scan_schedules_in_scope"),
}


class ConcernScans(Store):
    async def _scan(
        self, kind: TriggerKind, now: datetime, scope: str | None, limit: int
    ) -> list[ScheduledJob]:
        every, in_scope = SCANS[kind]
        if scope is None:
            (record,) = await self.query(every, now=utc(now), limit=limit)
        else:
            (record,) = await self.query(in_scope, now=utc(now), scope=scope, limit=limit)
        return [
            ScheduledJob(cid, kind, us)
            for cid, us in zip(record["ids"], record["due"], strict=True)
        ]

    async def due(
        self, now: datetime, *, scope: str | None = None, limit: int = 500
    ) -> list[ScheduledJob]:
        return await self._scan(TriggerKind.NEXT_ACTION_DUE, now, scope, limit)

    async def timeouts(
        self, now: datetime, *, scope: str | None = None, limit: int = 500
    ) -> list[ScheduledJob]:
        return await self._scan(TriggerKind.TIMEOUT, now, scope, limit)

    async def schedules(
        self, now: datetime, *, scope: str | None = None, limit: int = 500
    ) -> list[ScheduledJob]:
        return await self._scan(TriggerKind.SCHEDULE_DUE, now, scope, limit)

    async def count_due(self, now: datetime) -> int:
        records = await self.query("concern/count_due", now=utc(now))
        return int(records[0]["n"])
