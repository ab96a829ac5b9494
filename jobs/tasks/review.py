"""arq entry point of a supervision run's execution (`jobs.review.execution`)."""

from __future__ import annotations

from typing import Any

from jobs.review.execution import execute
from jobs.review.services import ReviewServices


async def supervise(ctx: dict[str, Any], *, run_id: str, owner: str, token: int) -> str:
    """arq job: execute a supervision run a person or the heartbeat started (checked when it
    was enqueued)."""
    return await execute(ReviewServices.from_ctx(ctx), run_id, owner, token)
