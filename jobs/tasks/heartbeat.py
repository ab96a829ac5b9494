"""arq entry points of heartbeat plans (`jobs.review.heartbeat`): the cron tick, a report,
the downstream automatic supervision. The worker acts on its own schedule, as `WORKER`;
each takes `now` as the other tasks do (a test, or a caller through the queue, stops
time there: `jobs.deps.job_clock`)."""

from __future__ import annotations

from typing import Any

from engine.principal import WORKER
from jobs.deps import Deps, JobNow
from jobs.review.common import HEARTBEAT_REPORT, SUPERVISE_AUTOMATIC
from jobs.review.heartbeat import automatic, claim_due, expire_history, report
from jobs.tasks.review import gateway_of

__all__ = [
    "HEARTBEAT_REPORT",
    "SUPERVISE_AUTOMATIC",
    "heartbeat_report",
    "heartbeat_retention",
    "heartbeat_tick",
    "supervise_automatic",
]


async def heartbeat_tick(ctx: dict[str, Any], *, now: JobNow = None) -> int:
    """Queue every due plan slot's report once; returns how many this worker queued."""
    return len(await claim_due(Deps.from_ctx(ctx, now=now), WORKER))


async def heartbeat_report(
    ctx: dict[str, Any],
    *,
    run_id: str,
    queued: dict[str, Any] | None = None,
    claim_key: str | None = None,
    now: JobNow = None,
) -> str:
    """A heartbeat report; `queued`/`claim_key`: a scheduled beat the report claims once it
    holds a pool slot."""
    return await report(
        Deps.from_ctx(ctx, now=now),
        WORKER,
        run_id,
        gateway=gateway_of(ctx),
        queued=queued,
        claim_key=claim_key,
    )


async def supervise_automatic(
    ctx: dict[str, Any],
    *,
    heartbeat_run_id: str,
    scope: dict[str, Any],
    window_s: float | None = None,
    per_run: int | None = None,
    now: JobNow = None,
) -> str:
    """The downstream supervision check of a heartbeat (automatic: waits for the lease)."""
    return await automatic(
        Deps.from_ctx(ctx, now=now),
        WORKER,
        heartbeat_run_id=heartbeat_run_id,
        scope=scope,
        window_s=window_s,
        per_run=per_run,
        gateway=gateway_of(ctx),
    )


async def heartbeat_retention(ctx: dict[str, Any], *, now: JobNow = None) -> int:
    """Cron: remove heartbeat runs and reports past their plan's retention; how many went."""
    return await expire_history(Deps.from_ctx(ctx, now=now), WORKER)
