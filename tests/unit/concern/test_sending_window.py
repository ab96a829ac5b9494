"""Sending windows per priority (docs/rules/concerns.md#follow-up-intervals: a priority "影响发送时段")."""

from __future__ import annotations

from datetime import datetime, time

import pytest

from engine.concern.effects import SendMessage
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import Priority
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import due_trigger
from engine.concern.window import next_send_time
from tests.support.concern import POLICY, TZ, out, raised

SAT_0713 = datetime(2026, 3, 21, 7, 13, tzinfo=TZ)
SUN_2230 = datetime(2026, 3, 22, 22, 30, tzinfo=TZ)


@pytest.mark.parametrize(
    ("priority", "when", "goes"),
    [
        (Priority.CRITICAL, SAT_0713, SAT_0713),
        (Priority.HIGH, SAT_0713, datetime(2026, 3, 21, 8, 0, tzinfo=TZ)),
        (Priority.HIGH, SUN_2230, datetime(2026, 3, 23, 8, 0, tzinfo=TZ)),
        (Priority.MEDIUM, SAT_0713, datetime(2026, 3, 23, 9, 0, tzinfo=TZ)),
        (Priority.LOW, SUN_2230, datetime(2026, 3, 23, 9, 0, tzinfo=TZ)),
        (Priority.MEDIUM, datetime(2026, 3, 23, 17, 59, tzinfo=TZ), None),
    ],
)
def test_each_priority_goes_inside_its_window(
    priority: Priority, when: datetime, goes: datetime | None
) -> None:
    assert next_send_time(when, priority, POLICY) == (goes or when)


def test_the_windows_are_configurable() -> None:
    policy = ConcernPolicy(work_start=time(10, 0), workdays=frozenset({0, 1, 2, 3, 4, 5}))
    assert next_send_time(SAT_0713, Priority.MEDIUM, policy) == SAT_0713.replace(hour=10, minute=0)


def test_a_message_outside_its_window_is_held_and_says_when_it_goes() -> None:
    c = raised(priority=Priority.MEDIUM, now=SAT_0713)
    trig = due_trigger(c, SAT_0713)
    assert trig is not None
    d = decide(c, trig, out(LoopStep.FOLLOW_UP), SAT_0713, POLICY)
    (msg,) = [e for e in d.effects if isinstance(e, SendMessage)]
    monday = datetime(2026, 3, 23, 9, 0, tzinfo=TZ)
    assert msg.deliver_at == monday
    sends = [e.detail for e in d.new_concern.timeline if e.type == "action_send"]
    assert sends == [
        "已安排发送给张三（feishu）：medium 优先级只在工作时间发送，将于 2026-03-23 09:00 发出"
    ]
    # the follow-up clock starts when the message goes: medium's first chase 4 h after it
    assert d.new_concern.next_action is not None
    assert d.new_concern.next_action.when >= monday
