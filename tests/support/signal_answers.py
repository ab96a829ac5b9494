"""A signal's concern as it ends, for the tests of the answers' way back:
the follow-up the agenda raised for a signal, its conversation and its end state."""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.concern.model import (
    Concern,
    ConcernStatus,
    ConcernType,
    ConversationEntry,
    Direction,
    Initiator,
    PersonRef,
    Source,
)
from engine.llm.reading import ReplyReading
from engine.llm.tasks import LogEntry, LoopContext, Person
from engine.offline.signal_goals import read_subject_reply
from engine.signal.stored import Signal

FOLLOW_UP = "确认前端部分提测是否已完成"


def ended_concern(
    signal: Signal,
    *answers: str,
    answered_at: datetime,
    status: ConcernStatus = ConcernStatus.RESOLVED,
    person: tuple[str, str] = ("p_lisi", "李四"),
    asked: tuple[str, datetime] | None = None,
    goal: str = FOLLOW_UP,
) -> Concern:
    """The concern raised for `signal` (`con-<signal id>`), ended with `status`: `asked` (our
    message and its time) if given, then `person`'s answers one minute apart."""
    pid, name = person
    log = [
        ConversationEntry(
            person_name=name, person_id=pid, direction=Direction.OUTBOUND, text=text, ts=at
        )
        for text, at in ([asked] if asked else [])
    ] + [
        ConversationEntry(
            person_name=name,
            person_id=pid,
            direction=Direction.INBOUND,
            text=a,
            ts=answered_at + timedelta(minutes=i),
        )
        for i, a in enumerate(answers)
    ]
    concern = Concern(
        concern_id=f"con-{signal.id}",
        type=ConcernType.FOLLOWUP,
        status=status,
        title=goal,
        goal=goal,
        source=Source(
            type="followup",
            initiator=Initiator(name="老板", channel="telegram", person_id="p_owner"),
            signal_id=signal.id,
        ),
        people=[PersonRef(person_id=pid, display_name=name)],
        conversation_log=log,
        created_at=signal.recorded_at,
        updated_at=answered_at,
    )
    return concern.model_copy(update={"reading": offline_reading(concern)})


def offline_reading(concern: Concern) -> ReplyReading | None:
    """What the offline model read in the concern's newest reply (its `LoopOutput.reading`)."""
    ctx = LoopContext(
        goal=concern.goal,
        now=concern.updated_at,
        counterparts=[Person(person_id=p.person_id) for p in concern.counterparts],
        conversation_log=[
            LogEntry(
                person_id=e.person_id,
                person_name=e.person_name,
                direction=e.direction.value,
                text=e.text,
                ts=e.ts,
            )
            for e in concern.conversation_log
        ],
    )
    return read_subject_reply(ctx)
