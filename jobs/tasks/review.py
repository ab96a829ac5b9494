"""arq entry point of a supervision run's execution (`jobs.review.runs.execute`)."""

from __future__ import annotations

from typing import Any

from engine.principal import WORKER
from jobs.deps import Deps, JobNow
from jobs.review.model import Gateway
from jobs.review.runs import execute


def gateway_of(ctx: dict[str, Any]) -> Gateway:
    """The model gateway the worker opened at start-up (`review_startup`)."""
    gateway: Gateway = ctx["gateway"]
    return gateway


async def supervise(
    ctx: dict[str, Any], *, run_id: str, owner: str, token: int, now: JobNow = None
) -> str:
    """arq job: execute a supervision run a person or the heartbeat started (checked when it
    was enqueued), as `WORKER`."""
    return await execute(
        Deps.from_ctx(ctx, now=now), WORKER, run_id, owner, token, gateway=gateway_of(ctx)
    )
