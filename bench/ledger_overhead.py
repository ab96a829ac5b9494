"""What recording a model call in the cost ledger adds to it (at most 1 ms,
because the ledger write is batched with the run's own writes).

    .venv/bin/python -m bench.ledger_overhead [--runs 200]

A supervision run's step commits through `SupervisionRuns.mutate` (lock, read, decide, write
the run's records). The bench times that commit with no model call to record, with 1 and
with 10 (`calls=`, as `Execution.commit` passes the step's meter), rounds alternated, and
prints p50 of each and the overhead per recorded call; beside it the in-process cost of
metering one call (`Meter.record` and its ledger entry), and the same for a heartbeat
report's commit (`HeartbeatRuns.put_in` with the report; a concern turn's `concern/save` and
a watch check's `watch/write_observation` include the same clause,
cypher/fragments/model_calls.cypher).

Every commit writes something new, as every real one does (the run's `updated_at`, the
report's text): a commit that changes nothing skips the transaction log, and would count
that saving as the ledger's cost.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from neo4j import AsyncManagedTransaction

from engine.llm.accounting import CallStats
from engine.llm.ledger import Attribution, Stage
from engine.review.heartbeat import HeartbeatRun
from engine.review.lifecycle import ReviewMode, create_run
from engine.review.types import Scope, Trigger
from engine.settings import Settings
from graph.driver import open_driver
from graph.migrate import migrate
from graph.review.codec import RunOptions
from graph.review.heartbeats import HeartbeatRuns
from graph.review.runs import RunChange, SupervisionRuns
from jobs.llm.ledger import Meter
from local.redis_server import with_redis_password

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def meter_of(scope: str, n: int, **who: str) -> Meter:
    meter = Meter(Attribution(stage=Stage.LEAF, scope=scope, **who))
    for _ in range(n):
        meter.record(CallStats(model="bench", prompt_tokens=1200, completion_tokens=300))
    return meter


async def p50(call: Callable[[], Awaitable[None]], times: list[float]) -> None:
    t0 = time.perf_counter()
    await call()
    times.append((time.perf_counter() - t0) * 1000)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    settings = with_redis_password(Settings.from_env())
    driver = open_driver(settings)
    db = settings.neo4j_database
    await migrate(driver, db)
    scope = f"bench-ledger-{uuid.uuid4().hex[:8]}"
    runs = SupervisionRuns(driver, db, deployment="bench-ledger")
    run = create_run(
        run_id=f"sup-{scope}",
        scope=Scope.projects(scope),
        trigger=Trigger.MANUAL,
        mode=ReviewMode.INCREMENTAL,
        worker_id="bench",
        per_batch=1000,
        stage_timeout=timedelta(minutes=5),
        now=NOW,
    )
    await runs.create(run, RunOptions())
    heartbeats = HeartbeatRuns(driver, db, deployment="bench-ledger")
    beat = HeartbeatRun(
        run_id=f"hb-{scope}",
        config_id=None,
        scope=Scope.projects(scope),
        trigger=Trigger.MANUAL,
        claimed_at=NOW,
    )
    await heartbeats.claim(beat, f"bench-ledger:{scope}")
    tick = iter(range(10**9))
    try:
        # in process: metering one call and making its ledger entry
        t0 = time.perf_counter()
        for _ in range(args.runs):
            meter_of(scope, 1).entries()
        in_process_us = (time.perf_counter() - t0) / args.runs * 1e6

        times: dict[int, list[float]] = {0: [], 1: [], 10: []}
        for _ in range(args.runs):
            for n in times:

                async def commit(n: int = n) -> None:
                    calls = meter_of(scope, n, run_id=run.run_id, batch="0").entries()
                    moved = NOW + timedelta(microseconds=next(tick))
                    await runs.mutate(
                        run.run_id,
                        lambda s: RunChange(
                            s.run.model_copy(update={"updated_at": moved}), calls=calls
                        ),
                    )

                await p50(commit, times[n])
        owner: dict[int, list[float]] = {0: [], 1: [], 10: []}
        for _ in range(args.runs):
            for n in owner:

                async def turn(n: int = n) -> None:
                    calls = meter_of(scope, n, run_id=beat.run_id).entries()

                    async def work(tx: AsyncManagedTransaction) -> None:
                        locked = await heartbeats.locked(tx, beat.run_id)
                        report = f"report {next(tick)}"
                        await heartbeats.put_in(tx, locked, report=report, calls=calls)

                    await heartbeats.write(work)

                await p50(turn, owner[n])
        m = {n: statistics.median(t) for n, t in times.items()}
        o = {n: statistics.median(t) for n, t in owner.items()}
        print(f"ledger overhead ({args.runs} rounds, p50)")
        print(f"  metering one call in process:           {in_process_us:8.1f} µs")
        print(f"  run step commit, no call recorded:       {m[0]:8.2f} ms")
        print(f"  run step commit, 1 call recorded:        {m[1]:8.2f} ms  (+{m[1] - m[0]:.2f} ms)")
        print(
            f"  run step commit, 10 calls recorded:      {m[10]:8.2f} ms  "
            f"(+{(m[10] - m[0]) / 10:.2f} ms per call)"
        )
        print(f"  heartbeat report commit, none recorded:  {o[0]:8.2f} ms")
        print(f"  heartbeat report commit, 1 call:         {o[1]:8.2f} ms  (+{o[1] - o[0]:.2f} ms)")
        print(
            f"  heartbeat report commit, 10 calls:       {o[10]:8.2f} ms  "
            f"(+{(o[10] - o[0]) / 10:.2f} ms per call)"
        )
        print("  target: <= 1 ms per recorded call")
    finally:
        for cleanup in (
            "MATCH (c:ModelCall {scope: $s}) DETACH DELETE c",
            "MATCH (t:ModelCallTotal {model: 'bench'}) DETACH DELETE t",
            "MATCH (h:HeartbeatRun {id: 'hb-' + $s}) DETACH DELETE h",
            "MATCH (n:ReviewStage {run_id: $r}) DETACH DELETE n",
            "MATCH (n:SupervisionRun {id: $r}) DETACH DELETE n",
        ):
            await driver.execute_query(cleanup, s=scope, r=run.run_id, database_=db)
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main())
