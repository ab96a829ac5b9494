"""ConcernScheduler on arq cron (docs/rules/concerns.md) and outbox delivery: the entry points
of `jobs.concern.scheduler`.

`run_concern_scheduler` runs every minute on every worker (arq's `unique` cron runs one per
tick) as `WORKER`. `now` and `scope` are arguments so an admin (and a test) can run it at a
moved clock; `runConcernScheduler` checked the asker when it enqueued the run.
"""

from __future__ import annotations

from typing import Any

from arq.cron import CronJob, cron

from engine.principal import WORKER
from jobs.concern import runtime as rt
from jobs.concern.scheduler import deliver_outbox, run_scheduler
from jobs.deps import Deps, JobNow


async def run_concern_scheduler(
    ctx: dict[str, Any], *, now: JobNow = None, scope: str | None = None
) -> dict[str, Any]:
    deps = Deps.from_ctx(ctx, now=now)
    run = await run_scheduler(deps, WORKER, rt.channel(ctx), now=deps.clock(), scope=scope)
    return {
        "due": run.due,
        "enqueued": run.enqueued,
        "sent": run.delivery.sent,
        "failed": list(run.delivery.failed),
    }


async def deliver_concern_outbox(
    ctx: dict[str, Any], *, concern_id: str | None, key: str | None = None, now: JobNow = None
) -> dict[str, Any]:
    """Deliver one concern's due outbox rows (after raiseConcern, which runs in the API), or
    one row outside any concern (`key`: the agenda's report of a signal)."""
    deps = Deps.from_ctx(ctx, now=now)
    delivery = await deliver_outbox(
        deps, WORKER, rt.channel(ctx), concern_id, key=key, now=deps.clock()
    )
    return {"sent": delivery.sent, "failed": list(delivery.failed)}


def scheduler_cron() -> CronJob:
    return cron(
        run_concern_scheduler,
        name="concern_scheduler",
        second=0,
        unique=True,
        run_at_startup=False,
        timeout=300,
    )
