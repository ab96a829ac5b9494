"""arq entry point: one heartbeat round over a scope's watches (`jobs.watch.rounds`)."""

from __future__ import annotations

from typing import Any

from engine.principal import WORKER
from jobs.deps import Deps, JobNow
from jobs.watch.rounds import run_round


async def run_watch_round(
    ctx: dict[str, Any],
    *,
    scope: str,
    full: bool = False,
    round_id: str | None = None,
    now: JobNow = None,
) -> dict[str, Any]:
    return await run_round(Deps.from_ctx(ctx, now=now), WORKER, scope, full=full, round_id=round_id)
