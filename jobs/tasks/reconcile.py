"""The reconciler's arq cron (the cases: jobs/reconcile.py).

Runs every minute (at :30, between the schedulers' ticks) on every worker; safe on all of
them at once. `now` moves its clock (`jobs.deps.job_clock`), for tests.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from arq.cron import CronJob, cron

from engine.principal import WORKER
from jobs.deps import Deps, JobNow
from jobs.reconcile import reconcile as reconcile_once


async def reconcile(ctx: dict[str, Any], *, now: JobNow = None) -> dict[str, list[str]]:
    deps = Deps.from_ctx(ctx, now=now)
    return dataclasses.asdict(await reconcile_once(deps, WORKER))


def reconcile_cron() -> CronJob:
    return cron(reconcile, name="reconcile", second=30, unique=True, run_at_startup=False)
