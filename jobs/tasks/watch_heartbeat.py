"""arq cron entry point: the watch heartbeat slot (`jobs.watch.rounds.heartbeat_tick`).

A watch is a standing check (docs/rules/watches.md): without this cron it would only run when
someone asked.
"""

from __future__ import annotations

from typing import Any

from engine.principal import WORKER
from jobs.deps import Deps, JobNow
from jobs.watch.rounds import heartbeat_tick


async def watch_heartbeat_tick(ctx: dict[str, Any], *, now: JobNow = None) -> int:
    """Enqueue this slot's rounds; returns how many were new."""
    return await heartbeat_tick(Deps.from_ctx(ctx, now=now), WORKER)
