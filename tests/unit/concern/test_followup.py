"""docs/rules/concerns.md: the interval table, the limits and what happens at the limit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.concern.agenda import Agenda, apply_update
from engine.concern.context import LoopContext
from engine.concern.effects import (
    AgendaUpdate,
    Decision,
    Escalate,
    ReportKind,
    ReportToOwner,
    SendMessage,
)
from engine.concern.followup import (
    LimitOutcome,
    at_limit,
    followup_interval,
    limit_outcome,
    max_followups,
)
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import ConcernStatus, Priority
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import due_trigger
from tests.support.concern import ANY_HOUR, POLICY, at, out, raised

H = timedelta(hours=1)
TABLE = {
    Priority.CRITICAL: ([timedelta(minutes=30), H, 2 * H], None, LimitOutcome.ESCALATE),
    Priority.HIGH: ([2 * H, 4 * H, 8 * H], 5, LimitOutcome.ESCALATE),
    Priority.MEDIUM: ([4 * H, 8 * H, 24 * H], 3, LimitOutcome.DROP),
    Priority.LOW: ([24 * H, 48 * H], 2, LimitOutcome.DROP),
}

priorities = st.sampled_from(list(Priority))
counts = st.integers(min_value=0, max_value=200)


@given(priorities, counts)
def test_interval_is_the_table_value_and_the_last_one_repeats(p: Priority, n: int) -> None:
    listed, limit, _ = TABLE[p]
    expected = None if limit is not None and n >= limit else listed[min(n, len(listed) - 1)]
    assert followup_interval(p, n) == expected


@given(priorities, counts)
def test_intervals_never_decrease(p: Priority, n: int) -> None:
    a, b = followup_interval(p, n), followup_interval(p, n + 1)
    if b is not None:
        assert a is not None and b >= a


@given(priorities, counts)
def test_limit_and_its_outcome(p: Priority, n: int) -> None:
    _, limit, outcome = TABLE[p]
    assert max_followups(p) == limit
    assert at_limit(p, n) == (limit is not None and n >= limit)
    assert limit_outcome(p) == outcome


def test_first_second_third_follow_up_exact_values() -> None:
    assert [followup_interval(Priority.CRITICAL, n) for n in range(4)] == [
        timedelta(minutes=30),
        H,
        2 * H,
        2 * H,
    ]
    assert [followup_interval(Priority.HIGH, n) for n in range(6)] == [
        2 * H,
        4 * H,
        8 * H,
        8 * H,
        8 * H,
        None,
    ]
    assert [followup_interval(Priority.MEDIUM, n) for n in range(4)] == [4 * H, 8 * H, 24 * H, None]
    assert [followup_interval(Priority.LOW, n) for n in range(3)] == [24 * H, 48 * H, None]


def test_negative_count_is_rejected() -> None:
    with pytest.raises(ValueError):
        followup_interval(Priority.HIGH, -1)


def _chase_until_limit(
    p: Priority, rounds: int, context: LoopContext | None = None, policy: ConcernPolicy = POLICY
) -> list[Decision]:
    """Contact once, then let every deadline pass with silence, sending a follow-up each time."""
    c = raised(priority=p)
    decisions = []
    now = at(0)
    for _ in range(rounds):
        trig = due_trigger(c, now)
        assert trig is not None
        d = decide(c, trig, out(LoopStep.FOLLOW_UP), now, policy, context)
        decisions.append(d)
        c = d.new_concern
        if c.next_action is None or c.next_action.when is None:
            break
        now = c.next_action.when
    return decisions


@pytest.mark.parametrize(
    ("priority", "status"),
    [
        (Priority.HIGH, ConcernStatus.ESCALATED),
        (Priority.MEDIUM, ConcernStatus.DROPPED),
        (Priority.LOW, ConcernStatus.DROPPED),
    ],
)
def test_at_the_limit_high_escalates_and_medium_low_are_dropped(
    priority: Priority, status: ConcernStatus
) -> None:
    limit = max_followups(priority)
    assert limit is not None
    # a second channel, so the silence rule switches once instead of escalating early
    ctx = LoopContext(person_channels={"p_zhangsan": ["feishu", "wechat"]})
    decisions = _chase_until_limit(priority, limit + 5, ctx)
    sends = [[e for e in d.effects if isinstance(e, SendMessage)] for d in decisions]
    # one initial contact, then exactly `limit` follow-ups, then the limit decision
    assert [len(s) for s in sends] == [1] * (limit + 1) + [0]
    last = decisions[-1]
    assert last.new_concern.status == status
    assert last.new_concern.followup_count == limit
    if status == ConcernStatus.ESCALATED:
        assert [type(e) for e in last.effects] == [Escalate, AgendaUpdate]
        (esc,) = [e for e in last.effects if isinstance(e, Escalate)]
        assert esc.text == (
            f"追问了张三{limit}次还没回复，「联系张三确认提测时间」需要你出面处理一下。"
        )
    else:
        notice, update = last.effects
        assert isinstance(notice, ReportToOwner) and notice.report_kinds == (ReportKind.DROPPED,)
        assert notice.text == (
            f"追问了张三{limit}次都没回复，「联系张三确认提测时间」我先不跟了，有需要再叫我。"
        )
        assert isinstance(update, AgendaUpdate)
        agenda = apply_update(Agenda(), update)
        assert agenda.recent_decisions[0].outcome == "dropped"
        assert agenda.recent_decisions[0].reason == f"追问{limit}次未回复，不再跟进"


def test_follow_up_times_follow_the_table_from_the_last_message() -> None:
    decisions = _chase_until_limit(Priority.MEDIUM, 10, policy=ANY_HOUR)  # the table alone
    whens = [d.new_concern.next_action.when for d in decisions[:-1] if d.new_concern.next_action]
    assert whens == [at(4 * 60), at(12 * 60), at(36 * 60), at(60 * 60)]  # last: final wait


def test_critical_is_unlimited_until_escalation() -> None:
    decisions = _chase_until_limit(Priority.CRITICAL, 12)
    statuses = [d.new_concern.status for d in decisions]
    # silence rule: after 3 silent follow-ups with no other channel it escalates
    assert statuses[-1] == ConcernStatus.ESCALATED
    assert all(s == ConcernStatus.WAITING_REPLY for s in statuses[:-1])
    assert len(decisions) == 5  # contact + 3 follow-ups + escalation
