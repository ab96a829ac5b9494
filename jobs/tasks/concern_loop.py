"""The concern agent loop as an arq job (docs/rules/concerns.md): `jobs.concern.loop.run_turn`.

`advance_concern(ctx, *, concern_id, trigger, now=None, signal=None)` runs one turn as
`WORKER` (the person who caused the trigger was checked when it was enqueued) at the time
it was given. A 429 defers the job by Retry-After (`Retry(defer=…)`), an unavailable model
retries later, a concern that kept changing retries at once, a failed send retries the job
(which then only delivers what is still pending); the gateway already applied the short
retries of docs/rules/watches.md#model-connection-errors, arq does not stack more.

`settle_concern_answer(ctx, *, concern_id, now)` writes a concern's answer back into the
story graph when its turn found another review holding the one-review lease: it waits for
the lease as automatic reviews do (`Retry(defer=…)`, many tries), then writes it once.
"""

from __future__ import annotations

import logging
from typing import Any

from arq.worker import Retry

from engine.concern.scheduler import Trigger
from engine.errors import Conflict
from engine.llm.errors import ModelRateLimited, ModelUnavailable
from engine.principal import WORKER
from jobs.concern import runtime as rt
from jobs.concern.answers import settle_stored_answer
from jobs.concern.loop import run_turn
from jobs.deps import Deps, JobNow
from jobs.review.conversation import ReviewWaits

log = logging.getLogger("storygraph.concern.loop")


async def advance_concern(
    ctx: dict[str, Any],
    *,
    concern_id: str,
    trigger: dict[str, Any],
    now: JobNow = None,
    signal: dict[str, Any] | None = None,
) -> dict[str, Any]:
    trig = Trigger.model_validate(trigger)
    deps = Deps.from_ctx(ctx, now=now)
    try:
        turn = await run_turn(
            deps,
            WORKER,
            concern_id,
            trig,
            model=rt.gateway(ctx),
            policy=rt.policy(ctx),
            channel=rt.channel(ctx),
            now=deps.clock(),
            signal=signal,
        )
    except ModelRateLimited as exc:
        raise Retry(defer=exc.retry_after if exc.retry_after is not None else 30) from exc
    except ModelUnavailable as exc:
        raise Retry(defer=60 * int(ctx.get("job_try", 1))) from exc
    except Conflict as exc:
        raise Retry(defer=1) from exc
    if turn.delivery.failed:
        raise Retry(defer=5 * int(ctx.get("job_try", 1)))
    log.info(
        "concern loop turn",
        extra={
            "fields": {
                "concern_id": concern_id,
                "trigger": trig.kind.value,
                "outcome": turn.outcome,
                "sent": len(turn.delivery.sent),
            }
        },
    )
    return {"concern_id": concern_id, "outcome": turn.outcome, "sent": turn.delivery.sent}


async def settle_concern_answer(
    ctx: dict[str, Any], *, concern_id: str, now: JobNow = None
) -> dict[str, Any]:
    deps = Deps.from_ctx(ctx, now=now)
    try:
        plan, _ = await settle_stored_answer(deps, WORKER, concern_id, policy=rt.policy(ctx))
    except ReviewWaits as waits:
        raise Retry(defer=waits.defer) from waits
    except Conflict as exc:
        raise Retry(defer=1) from exc
    return {"concern_id": concern_id, "written": plan is not None}
