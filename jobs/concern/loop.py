"""One turn of the concern agent loop (docs/rules/concerns.md), as the worker runs it.

1. load the concern (goal + full conversation_log) and the person slices of its people;
2. skip straight to delivery when this trigger was already decided, is stale, or the
   concern is closed (a duplicate trigger never runs the loop twice);
3. ask the model gateway for a `LoopOutput` (goal_met, step, summary, owner_update…); a rate
   limit or an unavailable model propagates (`ModelRateLimited`, `ModelUnavailable`): the
   arq task turns it into a deferred retry, the gateway already applied the short retries of
   docs/rules/watches.md#model-connection-errors;
4. `loop.decide` — resolve with back-flow, follow up, wait, investigate or escalate;
5. save the decision with its outbox rows, agenda updates and the turn's model calls (cost
   ledger, stage concern_loop) in one transaction, guarded
   by the revision (a reply recorded meanwhile: reload and decide again; after
   `MAX_CONFLICT_RELOADS` the `Conflict` propagates and the task retries);
6. deliver the outbox rows that are due (`TurnResult.delivery` says what failed);
7. a concern raised for a signal that has ended (now or in an earlier run of this job), or
   whose reply moved the promise: what the loop read goes back into the story graph by the
   loop's run, citing the reply line (`jobs/concern/answers.py`, idempotent); while another
   review holds the one-review lease, by the answer's own job once it is free.
The model reads each reply against what the concern follows up (`LoopContext.subject`: the
signal's promise, blocker or difference) and answers a reading (`LoopOutput.reading`).
A call whose turn saved nothing (a failed request, a no-op decision) is written to the ledger
on its own, so every model call of the loop is counted.
`resolve_concern` exists only inside step 4: nothing else resolves a concern.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.clock import utcnow
from engine.concern.loop import decide
from engine.concern.loop_input import loop_input
from engine.concern.model import Concern
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, is_stale
from engine.concern.states import is_terminal
from engine.errors import Conflict, NotFound
from engine.llm.ledger import Attribution, Stage
from engine.llm.reading import Subject
from engine.llm.tasks import LoopContext, Signal
from engine.principal import Principal
from engine.signal.wording import subject_of
from graph.concern.persons import PersonContext, PersonStore
from graph.concern.repository import ConcernRepository
from jobs.concern.answers import settle_signal_answer
from jobs.concern.channel import Channel, DeliveryReport, deliver_due, live_senders
from jobs.concern.effects import enqueue_answer
from jobs.deps import Deps
from jobs.llm.gateway import ModelGateway
from jobs.llm.ledger import Meter, metering, settle
from jobs.review.conversation import ReviewWaits
from jobs.signal.record import signal_store

MAX_CONFLICT_RELOADS = 3


@dataclass(frozen=True)
class TurnResult:
    concern_id: str
    outcome: str
    delivery: DeliveryReport


def model_context(
    concern: Concern,
    trigger: Trigger,
    now: datetime,
    policy: ConcernPolicy,
    signal: dict[str, Any] | None = None,
    persons: dict[str, PersonContext] | None = None,
    subject: Subject | None = None,
) -> LoopContext:
    """What the model reads for one turn: goal, request, people with their context slices,
    the whole conversation log (engine/concern/loop_input.py) and, for a signal's concern,
    the promise or difference it follows up (the reply is read against it)."""
    slices = {
        pid: {"preferred_channel": p.preferred_channel, "channels": p.channels, **p.extra}
        for pid, p in (persons or {}).items()
    }
    signals = [Signal.model_validate(signal)] if signal else []
    ctx = loop_input(concern, trigger, now, policy, persons=slices, signals=signals)
    return ctx.model_copy(update={"subject": subject})


async def followed_up(deps: Deps, concern: Concern, scope: str, now: datetime) -> Subject | None:
    """The signal a concern follows up, as its model reads it; None for a person's concern."""
    sid = concern.source.signal_id
    if sid is None:
        return None
    found = await signal_store(deps).get(scope, sid, now=max(now, utcnow()))
    return subject_of(found) if found is not None else None


def already_decided(concern: Concern, trigger: Trigger) -> bool:
    jid = trigger.job_id(concern.concern_id)
    return (
        is_terminal(concern.status) or jid in concern.handled_triggers or is_stale(concern, trigger)
    )


async def run_turn(
    deps: Deps,
    principal: Principal,
    concern_id: str,
    trigger: Trigger,
    *,
    model: ModelGateway,
    policy: ConcernPolicy,
    channel: Channel,
    now: datetime | None = None,
    signal: dict[str, Any] | None = None,
) -> TurnResult:
    principal.require("agenda")
    moment = now or deps.clock()
    outcome = "already decided"
    persons = PersonStore(deps.driver, deps.database)
    concerns = ConcernRepository(deps.driver, deps.database)
    meter: Meter | None = None  # the turn's model calls, across conflict reloads
    try:
        for _ in range(MAX_CONFLICT_RELOADS):
            inputs = await persons.loop_inputs(concern_id)
            principal.visible(
                "agenda", inputs.scope, NotFound(f"no concern {concern_id}", concern_id=concern_id)
            )
            concern = inputs.concern
            if already_decided(concern, trigger):
                break
            context = await persons.loop_context(inputs, now=moment, policy=policy)
            subject = await followed_up(deps, concern, inputs.scope, moment)
            meter = meter or Meter(
                Attribution(stage=Stage.CONCERN_LOOP, scope=inputs.scope, concern_id=concern_id)
            )
            with metering(meter):
                judged = await model.judge_loop(
                    model_context(concern, trigger, moment, policy, signal, inputs.persons, subject)
                )
            decision = decide(concern, trigger, judged.value, moment, policy, context)
            try:
                saved = await concerns.save_decision(
                    decision,
                    scope=inputs.scope,
                    expected_revision=concern.revision,
                    now=moment,
                    calls=meter.entries(),
                )
            except Conflict:
                continue
            if saved:
                meter.paid()
            outcome = str(decision.new_concern.status)
            concern = decision.new_concern
            break
        else:
            raise Conflict(f"concern {concern_id} kept changing; try again", concern_id=concern_id)
    finally:
        await settle(deps.driver, deps.database, meter)
    delivery = await deliver_due(
        deps.driver,
        deps.database,
        channel,
        now=moment,
        worker_id=deps.worker_id,
        concern_id=concern_id,
        live=await live_senders(deps),
    )
    # a signal's concern that ended: its answer goes back into the story graph (idempotent,
    # so a rerun of a turn that finds the concern ended writes what a crash left unwritten)
    try:
        await settle_signal_answer(
            deps, principal, concern, inputs.scope, policy=policy, now=moment
        )
    except ReviewWaits as waits:
        if deps.pool is None:
            raise  # run inline: nothing can wait for the lease on the caller's behalf
        # another review holds the lease: the answer's own job writes it once it is free
        await enqueue_answer(
            deps.pool,
            deps.settings.queue_name,
            concern_id=concern_id,
            messages=len(concern.conversation_log),
            now=moment,
            defer=waits.defer,
        )
    return TurnResult(concern_id, outcome, delivery)
