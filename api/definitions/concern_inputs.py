"""GraphQL inputs of the concern engine, turned into the engine's validated models."""

from __future__ import annotations

from datetime import datetime, timedelta

import strawberry

from api.definitions.concern_types import ConcernPriority, ConcernType, ScheduleMode
from engine.concern import model as m


@strawberry.input
class InitiatorInput:
    name: str
    channel: str
    channel_user_id: str = ""
    person_id: str | None = None


@strawberry.input
class ConcernPersonInput:
    person_id: str
    display_name: str
    role_in_concern: str = "当事人"
    last_channel: str = ""


@strawberry.input
class ScheduleTriggerInput:
    next_run_at: datetime
    every_seconds: int | None = None
    mode: ScheduleMode = m.ScheduleMode.DIRECT  # type: ignore[valid-type]
    until: datetime | None = None


@strawberry.input(
    description="docs/rules/concerns.md raise_concern: goal is the completion condition."
)
class RaiseConcernInput:
    scope: str
    title: str
    goal: str
    type: ConcernType = m.ConcernType.DELEGATION  # type: ignore[valid-type]
    priority: ConcernPriority = m.Priority.MEDIUM  # type: ignore[valid-type]
    source_detail: str = ""
    initiator: InitiatorInput | None = None
    people: list[ConcernPersonInput] = strawberry.field(default_factory=list)
    needs_all_replies: bool = True
    trigger: ScheduleTriggerInput | None = None
    agenda_role: str = "tracking"
    first_action: str = ""
    at: datetime | None = strawberry.field(
        default=None, description="When the request was made (default: now)."
    )

    def to_model(self) -> m.RaiseConcernInput:
        people = [
            m.PersonRef(
                person_id=p.person_id,
                display_name=p.display_name,
                role_in_concern=p.role_in_concern,
                last_channel=p.last_channel,
            )
            for p in self.people
        ]
        ini = self.initiator
        trig = self.trigger
        return m.RaiseConcernInput.asking(
            type=self.type,
            needs_all_replies=self.needs_all_replies,
            priority=self.priority,
            title=self.title,
            goal=self.goal,
            source_detail=self.source_detail,
            initiator=m.Initiator(
                name=ini.name,
                channel=ini.channel,
                channel_user_id=ini.channel_user_id,
                person_id=ini.person_id,
            )
            if ini
            else None,
            people=people,
            trigger=m.ScheduleTrigger(
                next_run_at=trig.next_run_at,
                every=timedelta(seconds=trig.every_seconds) if trig.every_seconds else None,
                mode=trig.mode,
                until=trig.until,
            )
            if trig
            else None,
            agenda_role=self.agenda_role,
            first_action=self.first_action,
        )


@strawberry.input(description="docs/rules/concerns.md advance_concern: someone answered.")
class AdvanceConcernInput:
    concern_id: strawberry.ID
    person_id: str
    text: str
    channel: str = ""
    message_id: str | None = None
    at: datetime | None = strawberry.field(
        default=None, description="When the message was written (default: now)."
    )


@strawberry.input(
    description="docs/rules/concerns.md priority 变化: the Agenda ref, follow-up intervals and the "
    "sending window follow the new priority."
)
class ChangeConcernPriorityInput:
    concern_id: strawberry.ID
    priority: ConcernPriority  # type: ignore[valid-type]
    at: datetime | None = strawberry.field(
        default=None, description="When the change was decided (default: now)."
    )


@strawberry.input(description="A related fact the cognitive hub routes to a concern.")
class ConcernFactInput:
    concern_id: strawberry.ID
    fact_id: str
    kind: str
    source: str = ""
    detail: str = ""
    person_id: str | None = None
    at: datetime | None = None


@strawberry.input
class PersonInput:
    scope: str
    person_id: str
    display_name: str
    preferred_channel: str = ""
    channels: list[str] = strawberry.field(default_factory=list)
    is_owner: bool = False
