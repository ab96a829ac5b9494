"""arq cron entry point: the watch heartbeat slot (`jobs.watch.rounds.heartbeat_tick`).

A watch is a standing check (seed 000 持续关注): without this cron it would only run when
someone asked.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.clock import utcnow
from engine.principal import WORKER
from jobs.deps import Deps
from jobs.watch.rounds import heartbeat_tick


async def watch_heartbeat_tick(ctx: dict[str, Any], *, now: datetime | None = None) -> int:
    """Enqueue this slot's rounds; returns how many were new."""
    clock = (lambda: now) if now is not None else utcnow
    return await heartbeat_tick(Deps.from_ctx(ctx, clock=clock), WORKER)
