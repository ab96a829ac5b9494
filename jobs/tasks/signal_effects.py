"""The agenda's effect of one signal as an arq job: `jobs.concern.agenda`.

`perform_signal_effect(ctx, *, scope, signal_id, now=None)` performs, as `WORKER`, what the
signal's recorded decision asks for (raise, supplement, report). It is keyed by the signal
(`signal-effect:<id>`) and idempotent: a retried, redelivered or concurrent run finds the
concern `con-<id>` already raised. A concern that changed under it, or a covering concern a
raise of the same review has not created yet, retries shortly.
"""

from __future__ import annotations

import logging
from typing import Any

from arq.worker import Retry

from engine.errors import Conflict, NotFound
from engine.principal import WORKER
from jobs.concern.agenda import perform_effect
from jobs.deps import Deps, JobNow

log = logging.getLogger("storygraph.signal.effects")


async def perform_signal_effect(
    ctx: dict[str, Any], *, scope: str, signal_id: str, now: JobNow = None
) -> dict[str, Any]:
    deps = Deps.from_ctx(ctx, now=now)
    try:
        done = await perform_effect(deps, WORKER, scope, signal_id)
    except (Conflict, NotFound) as exc:
        raise Retry(defer=2 * int(ctx.get("job_try", 1))) from exc
    log.info(
        "signal effect",
        extra={"fields": {"signal_id": signal_id, "outcome": done.outcome}},
    )
    return {"signal_id": signal_id, "outcome": done.outcome, "concern_id": done.concern_id}
