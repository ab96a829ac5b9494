"""Typed outbox items a concern decision asks the shell to perform.

Each effect carries `key`, an idempotency key derived only from the concern, the trigger's
job id and the effect's target — never from the clock — so a job that runs twice produces
the same keys and the outbox (MERGE on key) sends each message once (docs/architecture/index.md).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from engine.concern.model import Concern, ConcernStatus, Priority


class Tone(StrEnum):
    NORMAL = "normal"
    SOFT = "soft"  # docs/rules/concerns.md: 抗拒但在进行 → 语气变柔


class ReportKind(StrEnum):
    """docs/rules/concerns.md."""

    CREATED = "created"
    CONTACTED = "contacted"
    TIMEOUT_RETRY = "timeout_retry"
    PARTIAL = "partial"
    OWNER_UPDATE = "owner_update"
    # the follow-up limit of a medium/low concern closed it (→ dropped; docs/rules/concerns.md)
    DROPPED = "dropped"


class Recipient(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    channel: str
    channel_user_id: str = ""
    person_id: str | None = None


class _Effect(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    concern_id: str


class SendMessage(_Effect):
    kind: Literal["send_message"] = "send_message"
    person_id: str
    person_name: str
    channel: str
    text: str
    tone: Tone = Tone.NORMAL
    # later than now when the priority's sending window is closed (window.py); None = now
    deliver_at: AwareDatetime | None = None


class ReportToOwner(_Effect):
    """A mid-course report; `deliver_at` is later than now when a rate limit deferred it."""

    kind: Literal["report"] = "report"
    recipient: Recipient
    text: str
    report_kinds: tuple[ReportKind, ...]
    deliver_at: AwareDatetime
    # an agenda report of a signal that raised no concern: its `concern_id` is empty and the
    # signal has its own field
    signal_id: str | None = None


class BackflowMessage(_Effect):
    kind: Literal["backflow"] = "backflow"
    recipient: Recipient
    text: str


class HandOff(_Effect):
    """A scheduled item handed to the initiator's conversation (schedule mode
    via_conversation, schedule.py); it waits there for their answer."""

    kind: Literal["handoff"] = "handoff"
    recipient: Recipient
    text: str


class Escalate(_Effect):
    kind: Literal["escalate"] = "escalate"
    reason: str
    recipient: Recipient | None
    text: str


class SupersedeReports(_Effect):
    """docs/rules/concerns.md: the final 回流 ends the mid-course reports — these pending rows are
    never sent (their outbox status becomes `superseded`)."""

    kind: Literal["supersede"] = "supersede"
    keys: tuple[str, ...]


class RescheduleMessages(_Effect):
    """Pending outbox rows moved to a new delivery time (a priority change moved the sending
    window): `moves` is (row key, new deliver_at) pairs."""

    kind: Literal["reschedule"] = "reschedule"
    moves: tuple[tuple[str, AwareDatetime], ...]


class AgendaOp(StrEnum):
    UPSERT = "upsert"
    REMOVE = "remove"


class AgendaRef(BaseModel):
    """docs/rules/concerns.md: one `Agenda.concern_refs` entry."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concern_id: str
    priority: Priority
    status: ConcernStatus
    agenda_role: str


class RecentDecision(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    concern_id: str
    title: str
    outcome: str  # the closing status: resolved | dropped
    reason: str
    priority: Priority
    ts: AwareDatetime


class AgendaUpdate(_Effect):
    kind: Literal["agenda"] = "agenda"
    op: AgendaOp
    ref: AgendaRef
    decision: RecentDecision | None = None


Effect = Annotated[
    SendMessage
    | ReportToOwner
    | BackflowMessage
    | Escalate
    | HandOff
    | AgendaUpdate
    | SupersedeReports
    | RescheduleMessages,
    Field(discriminator="kind"),
]


def effect_key(job_id: str, kind: str, target: str) -> str:
    """The idempotency key of one effect of one decision."""
    return f"{job_id}/{kind}/{target}"


class Decision(BaseModel):
    """The result of every concern decision: the new state and the effects to perform.

    The shell persists `new_concern` (optimistically, by `revision`) together with the
    effects as outbox rows keyed by `Effect.key`, in one transaction. `noop` is True when the
    trigger was already handled or the concern is closed: nothing to persist or send.
    """

    model_config = ConfigDict(frozen=True)

    new_concern: Concern
    effects: tuple[Effect, ...] = ()
    job_id: str
    noop: bool = False

    def of_kind(self, kind: str) -> list[Effect]:
        return [e for e in self.effects if e.kind == kind]
