"""changeConcernPriority's decision (priority 变化; docs/rules/concerns.md)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from engine.concern.context import PendingMessage
from engine.concern.effects import AgendaUpdate, RescheduleMessages, SendMessage
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import Concern, Priority
from engine.concern.priority import change_priority
from engine.concern.scheduler import due_trigger
from engine.errors import Conflict
from tests.support.concern import POLICY, TZ, at, out, raised

H = timedelta(hours=1)
SAT_0713 = datetime(2026, 3, 21, 7, 13, tzinfo=TZ)


def contacted(priority: Priority, now: datetime) -> tuple[Concern, tuple[PendingMessage, ...]]:
    c = raised(priority=priority, now=now)
    trig = due_trigger(c, now)
    assert trig is not None
    d = decide(c, trig, out(LoopStep.FOLLOW_UP), now, POLICY)
    pending = tuple(
        PendingMessage(
            key=e.key,
            kind=e.kind,
            recipient_person_id=e.person_id,
            recorded_at=now,
            deliver_at=e.deliver_at or now,
        )
        for e in d.effects
        if isinstance(e, SendMessage)
    )
    return d.new_concern, pending


def test_lowering_the_priority_stretches_the_next_follow_up_and_updates_the_agenda() -> None:
    c, _ = contacted(Priority.HIGH, at(0))
    assert c.next_action is not None and c.next_action.when == at(0) + 2 * H
    d = change_priority(c, Priority.LOW, now=at(30), job_id="p1", policy=POLICY)
    after = d.new_concern
    assert after.priority == Priority.LOW
    assert after.next_action is not None and after.next_action.when == at(0) + 24 * H
    [ref] = [e for e in d.effects if isinstance(e, AgendaUpdate)]
    assert ref.ref.priority == Priority.LOW
    assert after.timeline[-1].type == "priority_changed"
    assert after.timeline[-1].detail == "优先级 high → low；下次跟进 2026-03-17 10:00"


def test_raising_to_critical_sends_a_held_message_now() -> None:
    c, pending = contacted(Priority.MEDIUM, SAT_0713)
    assert pending[0].deliver_at == datetime(2026, 3, 23, 9, 0, tzinfo=TZ)  # held for Monday
    now = SAT_0713 + timedelta(minutes=7)
    d = change_priority(c, Priority.CRITICAL, now=now, job_id="p1", policy=POLICY, pending=pending)
    [moved] = [e for e in d.effects if isinstance(e, RescheduleMessages)]
    assert moved.moves == ((pending[0].key, now),)
    after = d.new_concern
    assert after.people[-1].last_outbound_at == now
    assert after.conversation_log[-1].ts == now
    # critical's first follow-up: 30 minutes after the message really went
    assert after.next_action is not None and after.next_action.when == now + timedelta(minutes=30)
    assert "1 条待发消息改按任何时间发送（2026-03-21 07:20 发出）" in after.timeline[-1].detail


def test_same_priority_is_a_noop_and_a_closed_concern_cannot_change() -> None:
    c, _ = contacted(Priority.HIGH, at(0))
    assert change_priority(c, Priority.HIGH, now=at(1), job_id="p", policy=POLICY).noop
    closed = c.model_copy(update={"status": "resolved"})
    with pytest.raises(Conflict):
        change_priority(closed, Priority.LOW, now=at(1), job_id="p", policy=POLICY)
