"""The concern object (docs/rules/concerns.md) and the input that raises one.

A concern keeps only the minimal person references of docs/rules/concerns.md (person_id,
display_name, role_in_concern, comm_status, last channel); the person's master data lives
elsewhere and is read through `resolve_person_context(person_id)` by the layers above.
Besides the fields docs/rules/concerns.md names it carries the engine's own bookkeeping:
follow-up counters, report rate-limit state, the people whose part of the goal is done, and
the triggers already handled (so a job that runs twice decides once).

Every timestamp is timezone-aware; `now` always comes from the caller.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum
from typing import Any

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from engine.concern.loop_output import Attitude, NextAction
from engine.llm.reading import ReplyReading


class ConcernType(StrEnum):
    DELEGATION = "delegation"
    SCHEDULE = "schedule"
    ABSENCE_FOLLOWUP = "absence_followup"
    FOLLOWUP = "followup"
    HEARTBEAT = "heartbeat"


class ConcernStatus(StrEnum):
    """docs/rules/concerns.md; the allowed moves are in `engine.concern.states`."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    WAITING_REPLY = "waiting_reply"
    ESCALATED = "escalated"
    RESOLVED = "resolved"
    DROPPED = "dropped"


TERMINAL_STATUSES = frozenset({ConcernStatus.RESOLVED, ConcernStatus.DROPPED})


class Priority(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Direction(StrEnum):
    OUTBOUND = "outbound"
    INBOUND = "inbound"


class CommStatus(StrEnum):
    NOT_NEEDED = "not_needed"  # e.g. the initiator
    NOT_CONTACTED = "not_contacted"
    WAITING_REPLY = "waiting_reply"
    REPLIED = "replied"


class TimelineType(StrEnum):
    DISCOVERED = "discovered"
    STATUS = "status"  # a state-machine transition
    ACTION_SEND = "action_send"
    REPLY_RECEIVED = "reply_received"
    FACT = "fact"
    REPORT = "report"
    BACKFLOW = "backflow"
    ESCALATION = "escalation"
    PRIORITY_CHANGED = "priority_changed"
    EXECUTION = "execution"
    DECISION = "decision"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Initiator(_Model):
    name: str
    channel: str
    channel_user_id: str = ""
    person_id: str | None = None


class Source(_Model):
    type: str
    detail: str = ""
    initiator: Initiator | None = None
    # The story-graph signal the agenda raised this concern for (its answer goes
    # back into the graph); None for concerns people or agents raise.
    signal_id: str | None = None


class PersonRef(_Model):
    """docs/rules/concerns.md: the minimal reference; plus this concern's own contact
    bookkeeping."""

    person_id: str
    display_name: str
    role_in_concern: str = "当事人"
    comm_status: CommStatus = CommStatus.NOT_CONTACTED
    last_channel: str = ""
    last_outbound_at: AwareDatetime | None = None
    last_inbound_at: AwareDatetime | None = None
    # Follow-ups sent to this person with no reply since (docs/rules/concerns.md).
    silent_followups: int = 0
    # The earliest a follow-up to this person may go out (interval table / promised time);
    # a reply from them clears it (docs/rules/concerns.md).
    followup_not_before: AwareDatetime | None = None
    last_attitude: Attitude = Attitude.NONE

    @property
    def replied_since_last_outbound(self) -> bool:
        """A reply strictly after our last message. Our answer to a reply carries the reply's
        own timestamp; that tie is not "he replied since" (the answer is still unanswered)."""
        if self.last_inbound_at is None:
            return False
        return self.last_outbound_at is None or self.last_inbound_at > self.last_outbound_at


class TimelineEntry(_Model):
    ts: AwareDatetime
    type: TimelineType
    detail: str
    from_status: ConcernStatus | None = None
    to_status: ConcernStatus | None = None
    # the token (its name) whose request made this entry; None: the service's own work
    by: str | None = None


class ConversationEntry(_Model):
    person_name: str
    person_id: str
    direction: Direction
    text: str
    channel: str = ""
    ts: AwareDatetime
    message_id: str | None = None  # the channel's id, when it has one (dedups inbound)
    # the token (its name) that recorded this message (advanceConcern); None: the service
    recorded_by: str | None = None


class DelegationSettings(_Model):
    """Reply waiting and back-flow configuration of a delegation (`delegation`;
    docs/rules/concerns.md)."""

    expects_reply_from: list[str] = Field(default_factory=list)  # person ids
    # True: the goal needs every expected person's part (partial achievement;
    # docs/rules/concerns.md).
    needs_all_replies: bool = True


class ScheduleMode(StrEnum):
    """docs/rules/loop.md.2: 直发、借会话处理或系统独立处理."""

    DIRECT = "direct"
    VIA_CONVERSATION = "via_conversation"
    SYSTEM = "system"


class ScheduleTrigger(_Model):
    """The trigger of a schedule concern (`trigger`; docs/rules/concerns.md): once, or every
    `every`."""

    next_run_at: AwareDatetime | None
    every: timedelta | None = None
    mode: ScheduleMode = ScheduleMode.DIRECT
    until: AwareDatetime | None = None


class Execution(_Model):
    scheduled_for: AwareDatetime
    ran_at: AwareDatetime
    outcome: str
    detail: str = ""


class Concern(_Model):
    concern_id: str
    type: ConcernType
    status: ConcernStatus = ConcernStatus.PENDING
    priority: Priority = Priority.MEDIUM
    title: str
    goal: str
    source: Source
    people: list[PersonRef] = Field(default_factory=list)
    timeline: list[TimelineEntry] = Field(default_factory=list)
    conversation_log: list[ConversationEntry] = Field(default_factory=list)
    next_action: NextAction | None = None
    delegation: DelegationSettings | None = None
    trigger: ScheduleTrigger | None = None
    executions: list[Execution] = Field(default_factory=list)
    agenda_role: str = "tracking"

    created_at: AwareDatetime
    updated_at: AwareDatetime
    closed_at: AwareDatetime | None = None
    # Follow-up rounds sent so far (index into the interval table; docs/rules/concerns.md).
    followup_count: int = 0
    # People whose part of the goal is settled (partial achievement; docs/rules/concerns.md).
    done_person_ids: list[str] = Field(default_factory=list)
    # Mid-course report bookkeeping (docs/rules/concerns.md).
    last_report_at: AwareDatetime | None = None
    # A via-conversation schedule run handed to the initiator and not answered yet: its
    # scheduled time (schedule.py).
    awaiting_run: AwareDatetime | None = None
    # Job ids already decided, newest last (bounded by the policy).
    handled_triggers: list[str] = Field(default_factory=list)
    revision: int = 0
    # The loop's newest definite reading of a reply to what it follows up (reading.py).
    reading: ReplyReading | None = None

    @property
    def initiator(self) -> Initiator | None:
        return self.source.initiator

    def person(self, person_id: str) -> PersonRef | None:
        return next((p for p in self.people if p.person_id == person_id), None)

    def is_initiator(self, person_id: str) -> bool:
        ini = self.source.initiator
        return ini is not None and ini.person_id is not None and ini.person_id == person_id

    @property
    def counterparts(self) -> list[PersonRef]:
        """The people this concern talks to (not the initiator, not `not_needed`)."""
        return [
            p
            for p in self.people
            if not self.is_initiator(p.person_id) and p.comm_status != CommStatus.NOT_NEEDED
        ]

    @property
    def pending_counterparts(self) -> list[PersonRef]:
        return [p for p in self.counterparts if p.person_id not in self.done_person_ids]


class RaiseConcernInput(_Model):
    """What `raiseConcern` accepts (raise_concern; docs/rules/concerns.md): validated at the
    edge."""

    type: ConcernType = ConcernType.DELEGATION
    priority: Priority = Priority.MEDIUM
    title: str
    goal: str
    source_detail: str = ""
    initiator: Initiator | None = None
    people: list[PersonRef] = Field(default_factory=list)
    delegation: DelegationSettings | None = None
    trigger: ScheduleTrigger | None = None
    agenda_role: str = "tracking"
    first_action: str = ""
    signal_id: str | None = None  # set only by the agenda raising a concern for a signal

    @classmethod
    def asking(
        cls,
        *,
        people: list[PersonRef],
        needs_all_replies: bool = True,
        type: ConcernType = ConcernType.DELEGATION,
        **fields: Any,
    ) -> RaiseConcernInput:
        """From the fields a client sends (GraphQL `raiseConcern`, MCP `raise_concern`): a
        delegation expects a reply from every person it names."""
        delegation = (
            DelegationSettings(
                expects_reply_from=[p.person_id for p in people],
                needs_all_replies=needs_all_replies,
            )
            if type == ConcernType.DELEGATION
            else None
        )
        return cls(type=type, people=people, delegation=delegation, **fields)

    @field_validator("title", "goal")
    @classmethod
    def _required_text(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("must not be empty")
        return v

    @field_validator("people")
    @classmethod
    def _unique_people(cls, v: list[PersonRef]) -> list[PersonRef]:
        ids = [p.person_id for p in v]
        if len(ids) != len(set(ids)):
            raise ValueError("a person may appear only once")
        return v

    @model_validator(mode="after")
    def _schedule_needs_trigger(self) -> RaiseConcernInput:
        if self.type == ConcernType.SCHEDULE and self.trigger is None:
            raise ValueError("a schedule concern needs a trigger")
        if self.trigger is not None and self.type == ConcernType.SCHEDULE:
            ini = self.initiator
            mode = self.trigger.mode
            if mode == ScheduleMode.VIA_CONVERSATION and (ini is None or not ini.person_id):
                # the item is handed to the initiator's conversation and waits for them
                raise ValueError("a via_conversation schedule needs an initiator with a personId")
            if mode == ScheduleMode.DIRECT and not self.people and ini is None:
                raise ValueError("a direct schedule needs people to message or an initiator")
        if self.type == ConcernType.DELEGATION and self.initiator is None:
            # docs/rules/concerns.md: a delegation always flows back to its initiator.
            raise ValueError("a delegation needs an initiator")
        return self
