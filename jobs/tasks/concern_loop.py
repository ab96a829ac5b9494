"""The concern agent loop as an arq job (seed 002 §六 执行循环).

`advance_concern(ctx, *, concern_id, trigger, now=None, signal=None)`:
1. load the concern (goal + full conversation_log) and the person slices of its people;
2. skip straight to delivery when this trigger was already decided, is stale, or the
   concern is closed (a duplicate trigger never runs the loop twice);
3. ask the model gateway for a `LoopOutput` (goal_met, step, summary, owner_update…);
   a 429 defers the job by Retry-After (`Retry(defer=…)`), an unavailable model retries
   later; the gateway already applied the seed's short retries, arq does not stack more;
4. `loop.decide` — resolve with back-flow, follow up, wait, investigate or escalate;
5. save the decision with its outbox rows and agenda updates in one transaction, guarded
   by the revision (a reply recorded meanwhile: reload and decide again);
6. deliver the outbox rows that are due; a failed send retries the job, which then only
   delivers what is still pending.
`resolve_concern` exists only inside step 4: nothing else resolves a concern.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from arq.worker import Retry

from engine.concern.loop import decide
from engine.concern.loop_input import loop_input
from engine.concern.model import Concern
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, is_stale
from engine.concern.states import is_terminal
from engine.errors import Conflict
from engine.model.errors import ModelRateLimited, ModelUnavailable
from engine.model.tasks import LoopContext, Signal
from graph.concern.persons import PersonContext, load_loop_inputs, loop_context_for
from graph.concern.repository import save_decision
from jobs.tasks import concern_runtime as rt
from jobs.tasks.concern_channel import deliver_due

log = logging.getLogger("storygraph.concern.loop")

MAX_CONFLICT_RELOADS = 3


def model_context(
    concern: Concern, trigger: Trigger, now: datetime, policy: ConcernPolicy,
    signal: dict[str, Any] | None = None, persons: dict[str, PersonContext] | None = None,
) -> LoopContext:
    """What the model reads for one turn: goal, request, people with their context slices
    and the whole conversation log (engine/concern/loop_input.py)."""
    slices = {
        pid: {"preferred_channel": p.preferred_channel, "channels": p.channels, **p.extra}
        for pid, p in (persons or {}).items()
    }
    signals = [Signal.model_validate(signal)] if signal else []
    return loop_input(concern, trigger, now, policy, persons=slices, signals=signals)


def already_decided(concern: Concern, trigger: Trigger) -> bool:
    jid = trigger.job_id(concern.concern_id)
    return is_terminal(concern.status) or jid in concern.handled_triggers or is_stale(
        concern, trigger)


async def advance_concern(
    ctx: dict[str, Any], *, concern_id: str, trigger: dict[str, Any], now: str | None = None,
    signal: dict[str, Any] | None = None,
) -> dict[str, Any]:
    settings = rt.settings_of(ctx)
    driver, db = ctx["driver"], settings.neo4j_database
    moment = rt.job_now(now)
    trig = Trigger.model_validate(trigger)
    policy = rt.policy(ctx)
    outcome = "already decided"
    for _ in range(MAX_CONFLICT_RELOADS):
        inputs = await load_loop_inputs(driver, db, concern_id)
        concern = inputs.concern
        if already_decided(concern, trig):
            break
        context = await loop_context_for(driver, db, inputs, now=moment, policy=policy)
        try:
            judged = await rt.gateway(ctx).judge_loop(
                model_context(concern, trig, moment, policy, signal, inputs.persons))
        except ModelRateLimited as exc:
            raise Retry(defer=exc.retry_after if exc.retry_after is not None else 30) from exc
        except ModelUnavailable as exc:
            raise Retry(defer=60 * int(ctx.get("job_try", 1))) from exc
        decision = decide(concern, trig, judged.value, moment, policy, context)
        try:
            await save_decision(driver, db, decision, scope=inputs.scope,
                                expected_revision=concern.revision, now=moment)
        except Conflict:
            continue
        outcome = str(decision.new_concern.status)
        break
    else:
        raise Retry(defer=1)
    delivery = await deliver_due(driver, db, rt.channel(ctx), now=moment,
                                 worker_id=ctx.get("worker_id", "worker"), concern_id=concern_id)
    if delivery.failed:
        raise Retry(defer=5 * int(ctx.get("job_try", 1)))
    log.info("concern loop turn", extra={"fields": {
        "concern_id": concern_id, "trigger": trig.kind.value, "outcome": outcome,
        "sent": len(delivery.sent)}})
    return {"concern_id": concern_id, "outcome": outcome, "sent": delivery.sent}
