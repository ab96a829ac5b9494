"""Scheduled concerns do their mode's part (docs/rules/concerns.md#schedules-and-the-agenda:
直发、借会话处理或系统独立处理): never resolved without having done it."""

from __future__ import annotations

from engine.concern.admission import raise_concern
from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.effects import HandOff, SendMessage
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import (
    CommStatus,
    Concern,
    ConcernType,
    Priority,
    RaiseConcernInput,
    ScheduleMode,
    ScheduleTrigger,
)
from engine.concern.scheduler import due_trigger
from tests.support.concern import BOSS, POLICY, at, out, person


def scheduled(mode: ScheduleMode, people: bool = True) -> Concern:
    data = RaiseConcernInput(
        type=ConcernType.SCHEDULE,
        priority=Priority.HIGH,
        title="周五发版前确认回归结果",
        goal="回归结果已确认",
        initiator=BOSS,
        people=[person("p_zhangsan", "张三")] if people else [],
        trigger=ScheduleTrigger(next_run_at=at(60), mode=mode),
    )
    return raise_concern(data, concern_id="con_s", now=at(0), policy=POLICY).new_concern


def run(c: Concern, minute: float = 61, **fields: object):  # type: ignore[no-untyped-def]
    trig = due_trigger(c, at(minute))
    assert trig is not None
    # what the offline model says when nobody answered: follow up, "no reply"
    return decide(
        c, trig, out(LoopStep.FOLLOW_UP, summary="no reply", **fields), at(minute), POLICY
    )


def test_direct_messages_the_person_and_then_resolves() -> None:
    d = run(scheduled(ScheduleMode.DIRECT))
    [msg] = [e for e in d.effects if isinstance(e, SendMessage)]
    assert (msg.person_id, msg.text) == ("p_zhangsan", "定时提醒：周五发版前确认回归结果。")
    c = d.new_concern
    assert [(x.outcome, x.detail) for x in c.executions] == [("sent", "已发送给张三")]
    assert c.conversation_log[-1].text == msg.text and c.status == "resolved"


def test_via_conversation_hands_off_and_waits_for_the_initiators_answer() -> None:
    d = run(scheduled(ScheduleMode.VIA_CONVERSATION))
    [handoff] = [e for e in d.effects if isinstance(e, HandOff)]
    assert handoff.recipient.person_id == "p_owner" and "周五发版前确认回归结果" in handoff.text
    c = d.new_concern
    assert c.status == "waiting_reply"  # not resolved: it waits in the conversation
    assert [x.outcome for x in c.executions] == ["handed_off"]
    owner = c.person("p_owner")
    assert owner is not None and owner.comm_status == CommStatus.WAITING_REPLY
    answer = InboundMessage(person_id="p_owner", text="回归全过了", ts=at(90), channel="telegram")
    c, trig = record_inbound(c, answer, at(90))
    done = decide(c, trig, out(LoopStep.FOLLOW_UP, summary="no reply"), at(90), POLICY)
    c = done.new_concern
    assert [(x.outcome, x.detail) for x in c.executions][-1] == ("answered", "回归全过了")
    assert c.status == "resolved" and c.awaiting_run is None


def test_via_conversation_ignores_a_counterparts_message_while_waiting() -> None:
    c = run(scheduled(ScheduleMode.VIA_CONVERSATION)).new_concern
    other = InboundMessage(person_id="p_zhangsan", text="在忙", ts=at(70), channel="feishu")
    c, trig = record_inbound(c, other, at(70))
    d = decide(c, trig, out(LoopStep.RESOLVE, goal_met=True, conclusion="?"), at(70), POLICY)
    assert d.new_concern.status != "resolved" and d.new_concern.awaiting_run is not None


def test_system_runs_and_records_its_outcome() -> None:
    d = run(
        scheduled(ScheduleMode.SYSTEM, people=False), goal_met=True, conclusion="回归 120/120 通过"
    )
    c = d.new_concern
    assert [(x.outcome, x.detail) for x in c.executions] == [
        ("done", "系统已执行：回归 120/120 通过")
    ]
    assert not [e for e in d.effects if isinstance(e, SendMessage | HandOff)]
    assert c.status == "resolved"


def test_a_system_run_whose_goal_is_not_met_ends_dropped_not_resolved() -> None:
    d = run(
        scheduled(ScheduleMode.SYSTEM, people=False), goal_met=False, conclusion="回归 3 项失败"
    )
    c = d.new_concern
    assert [x.outcome for x in c.executions] == ["not_met"]
    assert c.status == "dropped"
    assert any("目标未达成：系统已执行：回归 3 项失败" in t.detail for t in c.timeline)
