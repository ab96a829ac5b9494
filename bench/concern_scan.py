"""Benchmark: the concern scheduler's due scan, and agent-loop throughput.

1. 100k concerns in a dedicated scope (BENCH_CONCERNS; the target is at 1M), 1% of them
   due: the due scan (the named query over the `concern_due_values` index, which holds
   every property it reads, and the jobs built from its ids and due instants) against a
   plain `count` of every due concern over the same index, interleaved in the same run,
   once reading every due concern and once at a scheduler tick's limit (500); then what
   deriving a job's trigger and stable id adds per job, at enqueue time.
2. Agent-loop throughput with the offline rule model: `advance_concern` turns (load, judge,
   decide, save with outbox and agenda, deliver) per second, sequential and 8 at a time.
The scope is deleted afterwards. Run: `.venv/bin/python -m bench.concern_scan` with
NEO4J_URI / NEO4J_PASSWORD (and the optional BENCH_CONCERNS, BENCH_LOOPS) set.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
import uuid
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from neo4j import AsyncDriver, Query

from engine.concern.admission import raise_concern
from engine.concern.model import (
    ConcernStatus,
    ConcernType,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.concern.policy import ConcernPolicy
from engine.settings import Settings
from graph.concern.codec import concern_props
from graph.concern.repository import ConcernRepository
from graph.concern.scans import ConcernScans
from graph.driver import open_driver
from graph.migrate import migrate
from jobs.llm.gateway import OfflineModelGateway
from jobs.tasks.concern_loop import advance_concern

NOW = datetime(2035, 6, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Monday
POLICY = ConcernPolicy()
BOSS = Initiator(name="老板", channel="telegram", person_id="p_owner")
STATUSES = [
    ConcernStatus.PENDING,
    ConcernStatus.IN_PROGRESS,
    ConcernStatus.WAITING_REPLY,
    ConcernStatus.ESCALATED,
]


def _template(concern_id: str, now: datetime) -> Any:
    data = RaiseConcernInput(
        type=ConcernType.DELEGATION,
        priority=Priority.MEDIUM,
        title="联系张三确认提测时间",
        goal="拿到张三的具体提测时间点",
        initiator=BOSS,
        people=[PersonRef(person_id="p_zhangsan", display_name="张三", last_channel="feishu")],
    )
    return raise_concern(data, concern_id=concern_id, now=now, policy=POLICY)


async def seed_concerns(driver: AsyncDriver, db: str, scope: str, total: int) -> int:
    """`total` concerns, every 100th due at NOW (the rest due within the next 30 days)."""
    base = _template("bench", NOW - timedelta(days=1)).new_concern
    due = 0
    batch: list[dict[str, Any]] = []
    for i in range(total):
        is_due = i % 100 == 0
        due += is_due and STATUSES[i % 4] != ConcernStatus.WAITING_REPLY
        when = NOW - timedelta(minutes=i % 97) if is_due else NOW + timedelta(minutes=1 + i % 43200)
        c = base.model_copy(
            update={
                "concern_id": f"{scope}-{i}",
                "status": STATUSES[i % 4],
                "next_action": base.next_action.model_copy(update={"when": when}),  # type: ignore[union-attr]
            }
        )
        batch.append(concern_props(c, scope))
        if len(batch) == 5000 or i == total - 1:
            await driver.execute_query(
                "UNWIND $rows AS r CREATE (c:Concern) SET c = r", rows=batch, database_=db
            )
            batch = []
    return due


async def time_scan(
    driver: AsyncDriver, db: str, limit: int, runs: int = 9
) -> tuple[float, float, int, int]:
    """A due scan of at most `limit` items (the query and the ScheduledJobs built from it)
    against the plain count of every due concern over the same index, interleaved."""
    scan_ms, count_ms = [], []
    found = counted = 0
    for _ in range(runs):
        t = time.perf_counter()
        found = len(await ConcernScans(driver, db).due(NOW, limit=limit))
        scan_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        counted = await ConcernScans(driver, db).count_due(NOW)
        count_ms.append((time.perf_counter() - t) * 1000)
    # the first runs warm the plan cache and page cache
    return statistics.median(scan_ms[2:]), statistics.median(count_ms[2:]), found, counted


async def time_job_ids(driver: AsyncDriver, db: str, runs: int = 7) -> float:
    """What enqueueing adds per due item before its Redis call: the trigger and stable id."""
    jobs = await ConcernScans(driver, db).due(NOW, limit=100_000)
    ms = []
    for _ in range(runs):
        t = time.perf_counter()
        for job in jobs:
            job.trigger.job_id(job.concern_id)
        ms.append((time.perf_counter() - t) * 1000)
    return statistics.median(ms) * 1000 / max(len(jobs), 1)


async def loop_throughput(
    driver: AsyncDriver, settings: Settings, scope: str, loops: int, parallel: int
) -> float:
    db = settings.neo4j_database
    ids = []
    for i in range(loops):
        decision = _template(f"{scope}-loop-{parallel}-{i}", NOW - timedelta(hours=1))
        await ConcernRepository(driver, db).create(
            decision, scope=scope, now=NOW - timedelta(hours=1)
        )
        ids.append((decision.new_concern.concern_id, decision.new_concern.next_action.when))  # type: ignore[union-attr]
    async with httpx.AsyncClient() as http:
        ctx = {
            "driver": driver,
            "settings": settings,
            "worker_id": "bench",
            "http": http,
            "gateway": OfflineModelGateway(),
        }
        gate = asyncio.Semaphore(parallel)

        async def one(cid: str, when: datetime) -> None:
            async with gate:
                await advance_concern(
                    ctx,
                    concern_id=cid,
                    now=NOW.isoformat(),
                    trigger={"kind": "next_action_due", "event_key": when.isoformat()},
                )

        t = time.perf_counter()
        await asyncio.gather(*(one(cid, when) for cid, when in ids))
        return loops / (time.perf_counter() - t)


async def cleanup(driver: AsyncDriver, db: str, scope: str) -> None:
    for label in ("OutboxMessage", "AgendaDecision", "Agenda", "Person", "Concern"):
        async with driver.session(database=db) as session:
            # the outer transaction of IN TRANSACTIONS lasts the whole deletion: at 1M
            # concerns longer than the 30 s default transaction timeout
            result = await session.run(
                Query(
                    f"MATCH (n:{label}) WHERE n.scope = $scope "
                    "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS",
                    timeout=3600,
                ),
                scope=scope,
            )
            await result.consume()


async def main() -> None:
    settings = Settings.from_env()
    total = int(os.environ.get("BENCH_CONCERNS", "100000"))
    loops = int(os.environ.get("BENCH_LOOPS", "200"))
    scope = f"bench-concern-{uuid.uuid4().hex[:8]}"
    driver = open_driver(settings)
    db = settings.neo4j_database
    try:
        await migrate(driver, db)
        t = time.perf_counter()
        due = await seed_concerns(driver, db, scope, total)
        print(f"seeded {total} concerns ({due} due) in {time.perf_counter() - t:.1f} s")
        for limit, what in ((100_000, "every due concern"), (500, "one scheduler tick")):
            scan, count, found, counted = await time_scan(driver, db, limit)
            print(
                f"due scan, {what} (limit {limit}): {scan:.1f} ms for {found} jobs; "
                f"count of all {counted} due over the same index: {count:.1f} ms; "
                f"ratio {scan / count:.2f}x (target <= 2x at 1M concerns)"
            )
        per_job = await time_job_ids(driver, db)
        print(f"trigger and job id, derived at enqueue: {per_job:.1f} µs per job")
        for parallel in (1, 8):
            rate = await loop_throughput(driver, settings, scope, loops, parallel)
            print(f"agent loop, offline rule model, {parallel} at a time: {rate:.1f} loops/s")
    finally:
        await cleanup(driver, db, scope)
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main())
