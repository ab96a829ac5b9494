"""arq entry points of heartbeat plans (`jobs.review.heartbeat`): the cron tick, a report,
the downstream automatic supervision. The worker acts on its own schedule, as `WORKER`."""

from __future__ import annotations

from typing import Any

from jobs.review.heartbeat import (
    HEARTBEAT_REPORT,
    SUPERVISE_AUTOMATIC,
    automatic,
    claim_due,
    report,
)
from jobs.review.services import ReviewServices

__all__ = [
    "HEARTBEAT_REPORT",
    "SUPERVISE_AUTOMATIC",
    "heartbeat_report",
    "heartbeat_tick",
    "supervise_automatic",
]


async def heartbeat_tick(ctx: dict[str, Any]) -> int:
    """Claim every due plan slot once; returns how many runs this worker claimed."""
    return len(await claim_due(ReviewServices.from_ctx(ctx)))


async def heartbeat_report(ctx: dict[str, Any], *, run_id: str) -> str:
    return await report(ReviewServices.from_ctx(ctx), run_id)


async def supervise_automatic(
    ctx: dict[str, Any],
    *,
    heartbeat_run_id: str,
    scope: dict[str, Any],
    window_s: float | None = None,
    per_run: int | None = None,
) -> str:
    """The downstream supervision check of a heartbeat (automatic: waits for the lease)."""
    return await automatic(
        ReviewServices.from_ctx(ctx),
        heartbeat_run_id=heartbeat_run_id,
        scope=scope,
        window_s=window_s,
        per_run=per_run,
    )
