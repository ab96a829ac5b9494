"""Answers come back into the graph, a concern use case: when a concern the agenda raised
for a signal ends (resolved, dropped, escalated), or its reply moves the promise. A reply
that states what the graph may record is reviewed like every message
(`jobs/review/conversation.py`: a supervision run over the concern's conversation whose
result transaction writes the proposals, by the run, citing the reply's line); a concern
that ended without such a reply only leaves its signal unresolved, in one transaction of the
loop's own (`engine/signal/outcome.py` decides, `graph/signal/answers.py` writes). Nothing
here writes a story object by another path.

Called by the agent-loop turn (`jobs/concern/loop.run_turn`) after the decision that ended
the concern was saved, and again by any later run of a turn that finds the concern ended (a
retried or redelivered job): the write is idempotent (the signal's status and ids derived
from the concern), so a crash between the two transactions loses nothing and a repeat
writes nothing. The back-flow to the initiator is the concern's own effect, unchanged.

While another review holds the one-review lease, the review of the conversation waits
(`ReviewWaits`, nothing written): the turn hands the answer to its own job
(`jobs.concern.effects.enqueue_answer`, one per version of the conversation), which settles
it again from the stored concern (`settle_stored_answer`) once the lease is free.

It lives with the concerns, as what a signal's decision raises does (`jobs/concern/agenda.py`):
the concern use cases ask a review and read and settle signals; the review and signal use
cases know no concern (jobs/README.md: the order of the jobs packages).
"""

from __future__ import annotations

from datetime import datetime

from engine.clock import utcnow
from engine.concern.model import Concern
from engine.concern.policy import ConcernPolicy
from engine.errors import Conflict, NotFound
from engine.llm.reading import ReplyOutcome
from engine.principal import Principal
from engine.signal.outcome import ENDED, OutcomePlan, needs_review
from engine.signal.stored import Signal
from graph.concern.repository import ConcernRepository
from graph.signal.answers import SignalAnswers
from jobs.deps import Deps
from jobs.review.conversation import review_concern_conversation

ATTEMPTS = 3


async def settle_signal_answer(
    deps: Deps,
    principal: Principal,
    concern: Concern,
    scope: str,
    *,
    policy: ConcernPolicy,
    now: datetime | None = None,
) -> tuple[OutcomePlan | None, list[Signal]]:
    """Write what an ended concern says about its signal; (None, []) when the concern is no
    signal's, has not ended, or its outcome is already written."""
    principal.visible(
        "agenda",
        scope,
        NotFound(f"no concern {concern.concern_id}", concern_id=concern.concern_id),
    )
    if concern.source.signal_id is None:
        return None, []
    moved = concern.reading is not None and concern.reading.outcome is ReplyOutcome.MOVED
    if concern.status not in ENDED and not moved:
        return None, []
    store = SignalAnswers(deps.driver, deps.database, locale=policy.locale)
    # A record time is never in the past: what the graph knew at an earlier moment does not
    # change (a reply dated earlier, `advanceConcern(at:)`, is recorded when it arrives; a
    # clock moved ahead, as the scheduler's `now`, records at that moment).
    moment = max(now or deps.clock(), utcnow())
    for attempt in range(ATTEMPTS):
        try:
            if needs_review(concern):
                # a moved commitment's new signal: its decision's effect (a new follow-up with
                # the person who moved it) is performed once the review's result committed
                return await review_concern_conversation(
                    deps,
                    principal,
                    concern,
                    scope,
                    tz=policy.timezone,
                    locale=policy.locale,
                    now=moment,
                )
            return await store.settle(concern, scope, now=moment, locale=policy.locale)
        except Conflict:
            # a second worker wrote the same outcome first: reading again finds it written
            if attempt == ATTEMPTS - 1:
                raise
    return None, []


async def settle_stored_answer(
    deps: Deps, principal: Principal, concern_id: str, *, policy: ConcernPolicy
) -> tuple[OutcomePlan | None, list[Signal]]:
    """`settle_signal_answer` for the concern as stored (the answer's own job, after the
    turn found the lease held), at the job's moment."""
    principal.require("agenda")
    stored = await ConcernRepository(deps.driver, deps.database).load(concern_id)
    principal.visible(
        "agenda", stored.scope, NotFound(f"no concern {concern_id}", concern_id=concern_id)
    )
    return await settle_signal_answer(
        deps, principal, stored.concern, stored.scope, policy=policy, now=deps.clock()
    )
