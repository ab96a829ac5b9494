"""The reconciler's arq cron (the cases: jobs/reconcile.py).

Runs every minute (at :30, between the schedulers' ticks) on every worker; safe on all of
them at once. `now` (ISO) moves its clock, for tests.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from arq.cron import CronJob, cron

from engine.clock import utcnow
from engine.principal import WORKER
from jobs.deps import Deps
from jobs.reconcile import reconcile as reconcile_once


async def reconcile(ctx: dict[str, Any], *, now: str | None = None) -> dict[str, list[str]]:
    clock = utcnow
    if now is not None:
        moment = datetime.fromisoformat(now)

        def clock() -> datetime:
            return moment

    deps = Deps.from_ctx(ctx, clock=clock)
    return dataclasses.asdict(await reconcile_once(deps, WORKER))


def reconcile_cron() -> CronJob:
    return cron(reconcile, name="reconcile", second=30, unique=True, run_at_startup=False)
