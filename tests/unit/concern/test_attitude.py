"""docs/rules/concerns.md: each row of the attitude table, as policy and in the loop."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.attitude import plan_next_followup
from engine.concern.context import LoopContext
from engine.concern.effects import Escalate, SendMessage, Tone
from engine.concern.followup import followup_interval
from engine.concern.loop import decide
from engine.concern.loop_output import Attitude, LoopStep, OutboundDraft
from engine.concern.model import Concern, ConcernStatus, Priority
from engine.concern.scheduler import Trigger, TriggerKind, due_trigger
from tests.support.concern import ANY_HOUR, POLICY, at, out, raised

H = timedelta(hours=1)
priorities = st.sampled_from(list(Priority))
counts = st.integers(min_value=0, max_value=1)  # below every limit


def contacted(priority: Priority = Priority.MEDIUM) -> Concern:
    c = raised(priority=priority)
    trig = due_trigger(c, at(0))
    assert trig is not None
    return decide(c, trig, out(LoopStep.FOLLOW_UP), at(0), POLICY).new_concern


def replied(c: Concern, text: str, minutes: float) -> tuple[Concern, Trigger]:
    msg = InboundMessage(person_id="p_zhangsan", text=text, ts=at(minutes), message_id=text)
    return record_inbound(c, msg, at(minutes))


@given(priorities, counts)
def test_commitment_sets_next_action_at_the_promised_time(p: Priority, n: int) -> None:
    promised = at(60 * 30)
    plan = plan_next_followup(Attitude.COMMITTED, p, n, at(0), promised_at=promised)
    assert plan.when == promised and plan.tone == Tone.NORMAL


@given(priorities, counts)
def test_vague_keeps_the_normal_interval(p: Priority, n: int) -> None:
    plan = plan_next_followup(Attitude.VAGUE, p, n, at(0))
    assert plan.when == at(0) + followup_interval(p, n)  # type: ignore[operator]
    assert plan.tone == Tone.NORMAL and not plan.consider_alternatives


@given(priorities, counts)
def test_resistant_but_working_doubles_the_interval_and_softens(p: Priority, n: int) -> None:
    plan = plan_next_followup(Attitude.RESISTANT_WORKING, p, n, at(0))
    assert plan.when == at(0) + 2 * followup_interval(p, n)  # type: ignore[operator]
    assert plan.tone == Tone.SOFT


@given(priorities, counts, st.integers(min_value=0, max_value=6))
def test_silence_keeps_the_interval_and_looks_elsewhere_after_three(
    p: Priority, n: int, silent: int
) -> None:
    plan = plan_next_followup(Attitude.SILENT, p, n, at(0), silent_followups=silent)
    assert plan.when == at(0) + followup_interval(p, n)  # type: ignore[operator]
    assert plan.consider_alternatives == (silent >= 3)


def test_commitment_without_a_future_time_falls_back_to_the_interval() -> None:
    plan = plan_next_followup(Attitude.COMMITTED, Priority.MEDIUM, 0, at(0), promised_at=at(-5))
    assert plan.when == at(4 * 60)


def test_loop_commitment_waits_for_the_promised_time_and_never_chases_earlier() -> None:
    c, trig = replied(contacted(), "好的，明天给你", 30)
    promised = at(24 * 60)
    d = decide(c, trig, out(attitude=Attitude.COMMITTED, promised_at=promised), at(30), POLICY)
    c = d.new_concern
    assert c.next_action is not None and c.next_action.when == promised
    assert c.person("p_zhangsan").followup_not_before == promised  # type: ignore[union-attr]
    # a later turn (e.g. a related fact) that tries to chase him early sends nothing
    fact = Trigger(kind=TriggerKind.RELATED_FACT, event_key="fact-1", detail="周会纪要更新")
    early = decide(
        c,
        fact,
        out(LoopStep.FOLLOW_UP, messages=[OutboundDraft(person_id="p_zhangsan", text="催一下")]),
        at(120),
        POLICY,
    )
    assert not [e for e in early.effects if isinstance(e, SendMessage)]
    assert early.new_concern.next_action.when == promised  # type: ignore[union-attr]


def test_loop_vague_reply_is_chased_after_the_normal_interval() -> None:
    c, trig = replied(contacted(), "我看看", 30)
    d = decide(c, trig, out(attitude=Attitude.VAGUE), at(30), POLICY)
    assert d.new_concern.next_action.when == at(30 + 4 * 60)  # type: ignore[union-attr]


def test_loop_resistant_reply_doubles_the_wait_and_the_next_chase_is_soft() -> None:
    c, trig = replied(contacted(), "别催了，已经在做了", 30)
    d = decide(c, trig, out(attitude=Attitude.RESISTANT_WORKING), at(30), POLICY)
    c = d.new_concern
    assert c.next_action is not None and c.next_action.when == at(30 + 8 * 60)
    due = due_trigger(c, c.next_action.when)
    assert due is not None
    # (every window open: 18:30 is outside a medium message's working hours)
    chase = decide(c, due, out(LoopStep.FOLLOW_UP), c.next_action.when, ANY_HOUR)
    (msg,) = [e for e in chase.effects if isinstance(e, SendMessage)]
    assert msg.tone == Tone.SOFT and msg.text.startswith("不着急")
    # the wait after a soft chase is doubled too: 2 × 8 h for the second medium follow-up
    assert chase.new_concern.next_action.when == c.next_action.when + 16 * H  # type: ignore[union-attr]


def _silent_chases(context: LoopContext) -> list[Concern]:
    c = contacted(Priority.HIGH)
    states = []
    for _ in range(4):
        assert c.next_action is not None and c.next_action.when is not None
        now = c.next_action.when
        trig = due_trigger(c, now)
        assert trig is not None
        d = decide(c, trig, out(LoopStep.FOLLOW_UP, attitude=Attitude.SILENT), now, POLICY, context)
        c = d.new_concern
        states.append(c)
        if c.status == ConcernStatus.ESCALATED:
            assert [type(e) for e in d.effects][0] is Escalate
            break
    return states


def test_after_three_silent_follow_ups_another_channel_is_tried() -> None:
    ctx = LoopContext(person_channels={"p_zhangsan": ["feishu", "wechat"]})
    states = _silent_chases(ctx)
    channels = [s.person("p_zhangsan").last_channel for s in states]  # type: ignore[union-attr]
    assert channels == ["feishu", "feishu", "feishu", "wechat"]
    assert states[-1].status == ConcernStatus.WAITING_REPLY


def test_after_three_silent_follow_ups_without_another_channel_it_escalates() -> None:
    states = _silent_chases(LoopContext())
    assert [s.status for s in states] == [ConcernStatus.WAITING_REPLY] * 3 + [
        ConcernStatus.ESCALATED
    ]
    assert states[-1].timeline[-1].detail == "张三连续3次未回复且无其他渠道"
