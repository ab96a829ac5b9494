"""advance_concern: recording a reply (docs/rules/concerns.md).

The conversation layer calls advance_concern when someone answers; it never resolves. This
records the inbound message in `conversation_log` (kept in time order), clears the person's
follow-up gate and silence count, moves `waiting_reply`/`escalated` back to `in_progress`
("a reply re-enters the loop"), and returns the `reply` trigger the shell enqueues. The
same channel message (`message_id`) recorded twice changes nothing and yields the same
trigger, hence the same job id.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from pydantic import AwareDatetime, BaseModel, ConfigDict, field_validator

from engine.concern.model import (
    CommStatus,
    Concern,
    ConcernStatus,
    ConversationEntry,
    Direction,
    TimelineType,
)
from engine.concern.scheduler import Trigger, TriggerKind
from engine.concern.states import add_timeline, is_terminal, transition
from engine.errors import Conflict, InvalidInput


class InboundMessage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    person_id: str
    text: str
    ts: AwareDatetime
    channel: str = ""
    message_id: str | None = None

    @field_validator("text")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @property
    def event_key(self) -> str:
        if self.message_id:
            return f"msg:{self.message_id}"
        digest = hashlib.sha256(self.text.encode()).hexdigest()[:12]
        return f"{self.person_id}:{self.ts.isoformat()}:{digest}"


def record_inbound(
    concern: Concern, message: InboundMessage, now: datetime
) -> tuple[Concern, Trigger]:
    """The concern with the reply recorded, and the trigger to enqueue for the agent loop."""
    trigger = Trigger(
        kind=TriggerKind.REPLY, event_key=message.event_key, person_id=message.person_id
    )
    if is_terminal(concern.status):
        raise Conflict(
            f"concern {concern.concern_id} is {concern.status}",
            concern_id=concern.concern_id,
            status=str(concern.status),
        )
    person = concern.person(message.person_id)
    if person is None:
        raise InvalidInput(
            f"{message.person_id} takes no part in concern {concern.concern_id}",
            concern_id=concern.concern_id,
            person_id=message.person_id,
        )
    if message.message_id and any(
        e.message_id == message.message_id for e in concern.conversation_log
    ):
        return concern, trigger

    entry = ConversationEntry(
        person_name=person.display_name,
        person_id=person.person_id,
        direction=Direction.INBOUND,
        text=message.text,
        channel=message.channel,
        ts=message.ts,
        message_id=message.message_id,
    )
    log = sorted([*concern.conversation_log, entry], key=lambda e: e.ts)
    updated_person = person.model_copy(
        update={
            "comm_status": (
                person.comm_status
                if person.comm_status == CommStatus.NOT_NEEDED
                else CommStatus.REPLIED
            ),
            "last_inbound_at": message.ts,
            "last_channel": message.channel or person.last_channel,
            "silent_followups": 0,
            "followup_not_before": None,
        }
    )
    people = [updated_person if p.person_id == person.person_id else p for p in concern.people]
    updated = concern.model_copy(
        update={"conversation_log": log, "people": people, "revision": concern.revision + 1}
    )
    updated = add_timeline(
        updated, now, TimelineType.REPLY_RECEIVED, f"收到{person.display_name}回复"
    )
    if updated.status in (ConcernStatus.WAITING_REPLY, ConcernStatus.ESCALATED):
        updated = transition(updated, ConcernStatus.IN_PROGRESS, now, "收到回复，重新进入处理循环")
    return updated, trigger
