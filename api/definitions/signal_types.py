"""GraphQL output type of a signal (issue 28): what a review learned that someone may have to
settle — a commitment with who, what and the due time, a blocker or risk with what it blocks,
a question, or a difference with its confirmed and proposed values — citing its passage."""

from __future__ import annotations

from datetime import datetime
from typing import TypeAlias

import strawberry

from api.definitions.story_types import Versioned, versioned
from engine.signal import model as sm
from engine.signal.stored import Signal as SignalModel

strawberry.enum(sm.SignalKind)
strawberry.enum(sm.SignalStatus)
SignalKind: TypeAlias = sm.SignalKind
SignalStatus: TypeAlias = sm.SignalStatus


@strawberry.type(description="A signal found by a review, as one version (issue 28).")
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


def signal_type(s: SignalModel) -> Signal:
    return versioned(Signal, s)
