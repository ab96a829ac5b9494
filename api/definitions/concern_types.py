"""GraphQL types of the concern engine (Agenda; docs/rules/concerns.md), from engine models."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ForwardRef

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import build
from api.definitions.cost import Cost, owner_cost
from api.definitions.signal_loaders import signal_by_id
from engine.concern import model as m
from engine.concern.agenda import Agenda as AgendaModel
from engine.concern.effects import AgendaRef as AgendaRefModel
from engine.concern.effects import RecentDecision as RecentDecisionModel
from graph.concern.outbox import OutboxRow
from graph.concern.persons import PersonContext

ConcernStatus = strawberry.enum(m.ConcernStatus, name="ConcernStatus")
ConcernPriority = strawberry.enum(m.Priority, name="ConcernPriority")
ConcernType = strawberry.enum(m.ConcernType, name="ConcernType")
ConversationDirection = strawberry.enum(m.Direction, name="ConversationDirection")
CommStatus = strawberry.enum(m.CommStatus, name="CommStatus")
ConcernTimelineType = strawberry.enum(m.TimelineType, name="ConcernTimelineType")
ScheduleMode = strawberry.enum(m.ScheduleMode, name="ScheduleMode")
# Concern.signal names the Signal type by its module (strawberry.lazy) and imports nothing of
# it: the signal types import this module (Signal.concern, and Signal is a Versioned, whose
# throughConcern is a Concern), so an import here would close a circle.
_SIGNAL = strawberry.lazy("api.definitions.signal_types").resolve_forward_ref(ForwardRef("Signal"))


@strawberry.type
class ConcernInitiator:
    name: str
    channel: str
    channel_user_id: str
    person_id: str | None


@strawberry.type
class ConcernSource:
    type: str
    detail: str
    initiator: ConcernInitiator | None
    signal_id: str | None = strawberry.field(
        default=None, description="The story-graph signal the agenda raised it for."
    )


@strawberry.type(description="docs/rules/concerns.md: the minimal person ref a concern keeps.")
class ConcernPerson:
    person_id: str
    display_name: str
    role_in_concern: str
    comm_status: CommStatus  # type: ignore[valid-type]
    last_channel: str


@strawberry.type
class ConcernTimelineEntry:
    ts: datetime
    type: ConcernTimelineType  # type: ignore[valid-type]
    detail: str
    from_status: ConcernStatus | None  # type: ignore[valid-type]
    to_status: ConcernStatus | None  # type: ignore[valid-type]
    by: str | None = strawberry.field(
        default=None,
        description="The token (its name) whose request made this entry; null: the service.",
    )


@strawberry.type
class ConversationEntry:
    person_name: str
    person_id: str
    direction: ConversationDirection  # type: ignore[valid-type]
    text: str
    channel: str
    ts: datetime
    recorded_by: str | None = strawberry.field(
        default=None,
        description="The token (its name) that recorded this message; null: the service.",
    )


@strawberry.type
class ConcernNextAction:
    what: str
    who_person_id: str | None
    when: datetime | None


@strawberry.type
class ConcernScheduleTrigger:
    next_run_at: datetime | None
    every_seconds: int | None
    mode: ScheduleMode  # type: ignore[valid-type]
    until: datetime | None


@strawberry.type
class ConcernExecution:
    scheduled_for: datetime
    ran_at: datetime
    outcome: str
    detail: str


@strawberry.type(description="A message the concern engine recorded in its outbox.")
class ConcernMessage:
    key: str
    concern_id: str | None = strawberry.field(
        description="The concern the message belongs to; null for an agenda report of a "
        "signal that raised no concern (see signalId)."
    )
    signal_id: str | None = strawberry.field(
        description="An agenda report: the signal it reports to the owner."
    )
    kind: str
    recipient_person_id: str | None
    recipient_name: str
    channel: str
    text: str
    report_kinds: list[str]
    deliver_at: datetime
    status: str
    attempts: int
    sent_at: datetime | None
    last_error: str | None

    @classmethod
    def from_model(cls, r: OutboxRow) -> ConcernMessage:
        return build(cls, r)


@strawberry.type(
    description="docs/rules/concerns.md: one concern, with its timeline and conversation."
)
class Concern:
    id: strawberry.ID
    type: ConcernType  # type: ignore[valid-type]
    status: ConcernStatus  # type: ignore[valid-type]
    priority: ConcernPriority  # type: ignore[valid-type]
    title: str
    goal: str
    source: ConcernSource
    people: list[ConcernPerson]
    timeline: list[ConcernTimelineEntry]
    conversation: list[ConversationEntry]
    next_action: ConcernNextAction | None
    trigger: ConcernScheduleTrigger | None
    executions: list[ConcernExecution]
    agenda_role: str
    followup_count: int
    done_person_ids: list[str]
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None
    revision: int

    @strawberry.field(
        description="What its loop's model calls cost (cost ledger, stage concern_loop): "
        "calls, tokens, retries, estimated calls."
    )
    async def cost(self, info: Info[Context, None]) -> Cost:
        return await owner_cost(info, "concern", str(self.id))

    @strawberry.field(
        description="The signal this concern was raised for (source.signalId), as believed "
        "now; null when none or not visible to the caller.",
        graphql_type=_SIGNAL | None,
    )
    async def signal(self, info: Info[Context, None]) -> Any:  # a Signal: see graphql_type
        if not self.source.signal_id:
            return None
        found = await signal_by_id(info.context).load(self.source.signal_id)
        return _SIGNAL.resolve_type().from_model(found) if found is not None else None

    @classmethod
    def from_model(cls, c: m.Concern) -> Concern:
        ini, trig, nxt = c.source.initiator, c.trigger, c.next_action
        return build(
            cls,
            c,
            id=strawberry.ID(c.concern_id),
            source=build(
                ConcernSource,
                c.source,
                initiator=build(ConcernInitiator, ini) if ini else None,
            ),
            people=[build(ConcernPerson, p) for p in c.people],
            timeline=[build(ConcernTimelineEntry, e) for e in c.timeline],
            conversation=[build(ConversationEntry, e) for e in c.conversation_log],
            next_action=build(ConcernNextAction, nxt) if nxt else None,
            trigger=(
                build(
                    ConcernScheduleTrigger,
                    trig,
                    every_seconds=int(trig.every.total_seconds()) if trig.every else None,
                )
                if trig
                else None
            ),
            executions=[build(ConcernExecution, x) for x in c.executions],
            done_person_ids=list(c.done_person_ids),
        )


@strawberry.type
class AgendaConcernRef:
    concern_id: str
    priority: ConcernPriority  # type: ignore[valid-type]
    status: ConcernStatus  # type: ignore[valid-type]
    agenda_role: str

    @classmethod
    def from_model(cls, r: AgendaRefModel) -> AgendaConcernRef:
        return build(cls, r)


@strawberry.type
class AgendaDecision:
    concern_id: str
    title: str
    outcome: str
    reason: str
    priority: ConcernPriority  # type: ignore[valid-type]
    ts: datetime

    @classmethod
    def from_model(cls, d: RecentDecisionModel) -> AgendaDecision:
        return build(cls, d)


@strawberry.type(description="docs/rules/concerns.md: what the agenda of one scope tracks.")
class Agenda:
    scope: str
    concern_refs: list[AgendaConcernRef]
    recent_decisions: list[AgendaDecision]

    @classmethod
    def from_model(cls, scope: str, a: AgendaModel) -> Agenda:
        return build(
            cls,
            a,
            scope=scope,
            concern_refs=[AgendaConcernRef.from_model(r) for r in a.concern_refs],
            recent_decisions=[AgendaDecision.from_model(d) for d in a.recent_decisions],
        )


@strawberry.type(description="resolve_person_context(person_id): the person's master data.")
class PersonProfile:
    person_id: str
    display_name: str
    preferred_channel: str
    channels: list[str]
    is_owner: bool

    @classmethod
    def from_model(cls, p: PersonContext) -> PersonProfile:
        return build(cls, p, channels=list(p.channels))


@strawberry.type(
    description="docs/rules/concerns.md: what a conversation with this person is given."
)
class ConversationContext:
    person: PersonProfile
    concerns: list[Concern]
    awaiting_reply: list[Concern]


@strawberry.type
class AdvanceTicket:
    concern: Concern
    job_id: str
    enqueued: bool
