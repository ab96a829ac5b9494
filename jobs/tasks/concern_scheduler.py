"""ConcernScheduler on arq cron (seed 002 §十 调度策略) and outbox delivery.

`run_concern_scheduler` runs every minute on every worker (arq's `unique` cron runs one
per tick). It runs the three index-backed scans — `scan_due_concerns`, `scan_timeouts`,
`scan_schedules` — and enqueues one agent-loop job per due item under the item's stable
job id, so two workers (or two ticks) that see the same item enqueue it once. v3.0: a
timeout only enqueues the loop; it never sends a reminder itself. It then delivers outbox
rows whose time has come (reports deferred by the rate limits of seed 002 §七).
`now` and `scope` are arguments so the operator (and a test) can run it at a moved clock.
"""

from __future__ import annotations

from typing import Any

from arq.cron import CronJob, cron

from graph.concern.scans import scan_due_concerns, scan_schedules, scan_timeouts
from jobs.tasks import concern_runtime as rt
from jobs.tasks.concern_channel import deliver_due
from jobs.tasks.concern_enqueue import enqueue_advance


async def run_concern_scheduler(
    ctx: dict[str, Any], *, now: str | None = None, scope: str | None = None
) -> dict[str, Any]:
    settings = rt.settings_of(ctx)
    driver, db = ctx["driver"], settings.neo4j_database
    moment = rt.job_now(now)
    found = [
        *await scan_due_concerns(driver, db, moment, scope=scope),
        *await scan_timeouts(driver, db, moment, scope=scope),
        *await scan_schedules(driver, db, moment, scope=scope),
    ]
    enqueued = []
    for job in found:
        if await enqueue_advance(ctx["redis"], settings.queue_name, concern_id=job.concern_id,
                                 trigger=job.trigger, now=moment):
            enqueued.append(job.job_id)
    delivery = await deliver_due(driver, db, rt.channel(ctx), now=moment, scope=scope,
                                 worker_id=ctx.get("worker_id", "worker"))
    return {"due": len(found), "enqueued": enqueued, "sent": delivery.sent,
            "failed": list(delivery.failed)}


async def deliver_concern_outbox(
    ctx: dict[str, Any], *, concern_id: str, now: str | None = None
) -> dict[str, Any]:
    """Deliver one concern's due outbox rows (after raiseConcern, which runs in the API)."""
    settings = rt.settings_of(ctx)
    delivery = await deliver_due(ctx["driver"], settings.neo4j_database, rt.channel(ctx),
                                 now=rt.job_now(now), concern_id=concern_id,
                                 worker_id=ctx.get("worker_id", "worker"))
    return {"sent": delivery.sent, "failed": list(delivery.failed)}


def scheduler_cron() -> CronJob:
    return cron(run_concern_scheduler, name="concern_scheduler", second=0, unique=True,
                run_at_startup=False, timeout=300)
