"""GraphQL output type of a signal: what a review learned that someone may have to
settle — a commitment with who, what and the due time, a blocker or risk with what it blocks,
a question, or a difference with its confirmed and proposed values — citing its passage."""

from __future__ import annotations

from datetime import datetime
from typing import TypeAlias

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import Excerpt, build, versioned
from api.definitions.concern_types import Concern
from api.definitions.signal_loaders import concern_of_signal, passage
from api.definitions.versioned import Versioned
from engine.signal import model as sm
from engine.signal.stored import Signal as SignalModel

strawberry.enum(sm.SignalKind)
strawberry.enum(sm.SignalStatus)
strawberry.enum(sm.DecisionKind)
SignalKind: TypeAlias = sm.SignalKind
SignalStatus: TypeAlias = sm.SignalStatus
DecisionKind: TypeAlias = sm.DecisionKind


@strawberry.type(description="What the agenda decided for a signal, by which policy version.")
class SignalDecision:
    kind: DecisionKind
    concern_id: str | None  # raised / supplemented: the concern (con-<signal id> when raised)
    reason: str
    policy_version: int
    label: str  # `raised con-…`, `ignored: no reachable person`


@strawberry.type(description="A signal found by a review, as one version.")
class Signal(Versioned):
    kind: SignalKind
    status: SignalStatus
    text: str
    source_id: str
    source_version: str
    locator: str
    run_id: str
    said_at: datetime | None
    who: str
    what: str
    due: datetime | None
    due_text: str
    blocks: str
    target_kind: str
    target_id: str
    field: str
    confirmed_value: str
    proposed_value: str
    suggestion_id: str = strawberry.field(
        default="",
        description="A difference: the pending suggestion a person accepts or dismisses.",
    )
    decision: SignalDecision | None  # None: undecided (the scope's loop is off)

    @strawberry.field(
        description="The passage the signal stands on: the text of exactly its source version "
        "(never today's text), or why it is unavailable."
    )
    async def passage(self, info: Info[Context, None]) -> Excerpt:
        key = (self.source_id, self.source_version, self.locator)
        return build(Excerpt, await passage(info.context, self.scope).load(key))

    @strawberry.field(
        description="The concern the agenda raised or supplemented for this signal (the one "
        "its decision names, else the one raised for it); null when none."
    )
    async def concern(self, info: Info[Context, None]) -> Concern | None:
        named = self.decision.concern_id if self.decision is not None else None
        found = await concern_of_signal(info.context, self.scope).load((str(self.id), named))
        return Concern.from_model(found) if found is not None else None

    @classmethod
    def from_model(cls, s: SignalModel) -> Signal:
        decision = None
        if s.decision_kind is not None and s.decision_policy_version is not None:
            made = sm.SignalDecision(
                kind=s.decision_kind,
                policy_version=s.decision_policy_version,
                concern_id=s.decision_concern_id,
                reason=s.decision_reason,
            )
            decision = SignalDecision(
                kind=made.kind,
                concern_id=made.concern_id,
                reason=made.reason,
                policy_version=made.policy_version,
                label=made.label(),
            )
        return versioned(cls, s, decision=decision)
