"""docs/rules/concerns.md: conditions by type, the four fields, the channel."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.concern.backflow import (
    backflow_target,
    choose_channel,
    compose_backflow,
    format_duration,
    validate_backflow,
)
from engine.concern.context import LoopContext
from engine.concern.effects import BackflowMessage, Recipient, SendMessage
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import ConcernType, Priority
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, TriggerKind
from engine.errors import InvalidInput
from tests.support.concern import BOSS, POLICY, at, out, raised

OWNER = Recipient(name="老板", channel="wechat", person_id="p_boss")
FACT = Trigger(kind=TriggerKind.RELATED_FACT, event_key="f1")


@pytest.mark.parametrize(
    ("type_", "priority", "has_initiator", "expected"),
    [
        (ConcernType.DELEGATION, Priority.LOW, True, "initiator"),
        (ConcernType.FOLLOWUP, Priority.MEDIUM, True, "initiator"),
        (ConcernType.FOLLOWUP, Priority.HIGH, False, None),
        (ConcernType.ABSENCE_FOLLOWUP, Priority.MEDIUM, True, "initiator"),
        (ConcernType.HEARTBEAT, Priority.CRITICAL, False, "owner"),
        (ConcernType.HEARTBEAT, Priority.HIGH, False, "owner"),
        (ConcernType.HEARTBEAT, Priority.MEDIUM, False, None),
        (ConcernType.HEARTBEAT, Priority.LOW, False, None),
    ],
)
def test_backflow_conditions_by_type(
    type_: ConcernType, priority: Priority, has_initiator: bool, expected: str | None
) -> None:
    c = raised(type_=type_, priority=priority, initiator=BOSS if has_initiator else None)
    target = backflow_target(c, OWNER)
    want = {"initiator": "p_owner", "owner": "p_boss", None: None}[expected]
    assert (target.person_id if target else None) == want
    d = decide(
        c,
        FACT,
        out(LoopStep.RESOLVE, goal_met=True, conclusion="好了"),
        at(60),
        POLICY,
        LoopContext(owner=OWNER),
    )
    flows = [e for e in d.effects if isinstance(e, BackflowMessage)]
    assert [f.recipient.person_id for f in flows] == ([want] if want else [])


def test_the_message_has_the_four_fields_and_may_add_a_note() -> None:
    c = raised()
    text = compose_backflow(
        c, conclusion="周五提测", key_information="张三：周五", now=at(125), note="背景：沙箱延期"
    )
    assert text.splitlines() == [
        "[回流] 联系张三确认提测时间",
        "结果：周五提测",
        "关键信息：张三：周五",
        "耗时：2小时5分钟",
        "背景：沙箱延期",
    ]


def test_english_back_flow_has_the_same_four_fields() -> None:
    text = compose_backflow(
        raised(), conclusion="Friday", key_information="Zhang: Fri", now=at(1505), locale="en"
    )
    assert text.splitlines() == [
        "[Back-flow] 联系张三确认提测时间",
        "Result: Friday",
        "Key information: Zhang: Fri",
        "Time taken: 1d 1h 5m",
    ]


@pytest.mark.parametrize("drop", [0, 1, 2, 3])
def test_omitting_any_field_is_invalid(drop: int) -> None:
    lines = ["[回流] T", "结果：好", "关键信息：x", "耗时：1小时"]
    del lines[drop]
    with pytest.raises(InvalidInput) as err:
        validate_backflow("\n".join(lines), "T")
    assert len(err.value.details["missing"]) == 1


def test_empty_field_is_invalid_and_empty_inputs_get_fallbacks() -> None:
    with pytest.raises(InvalidInput):
        validate_backflow("[回流] T\n结果：\n关键信息：x\n耗时：1小时", "T")
    text = compose_backflow(raised(), conclusion="", key_information="", now=at(0))
    assert "结果：目标已达成" in text and "关键信息：—" in text and "耗时：不到1分钟" in text


def test_duration_formats() -> None:
    assert format_duration(timedelta(minutes=45)) == "45分钟"
    assert format_duration(timedelta(days=2, minutes=3)) == "2天3分钟"


@pytest.mark.parametrize(
    ("preferred", "unreachable", "channel"),
    [
        (None, (), "telegram"),
        ("telegram", (), "telegram"),
        ("feishu", (), "feishu"),
        ("feishu", ("feishu",), "telegram"),
    ],
)
def test_channel_preferred_else_originating(
    preferred: str | None, unreachable: tuple[str, ...], channel: str
) -> None:
    assert choose_channel("telegram", preferred, unreachable) == channel
    ctx = LoopContext(
        preferred_channels={"p_owner": preferred} if preferred else {},
        unreachable_channels=frozenset(unreachable),
    )
    d = decide(raised(), FACT, out(LoopStep.RESOLVE, goal_met=True), at(5), POLICY, ctx)
    (flow,) = [e for e in d.effects if isinstance(e, BackflowMessage)]
    assert flow.recipient.channel == channel
    assert flow.recipient.channel_user_id == ("123" if channel == "telegram" else "")


def test_schedule_never_flows_back_and_results_go_to_executions() -> None:
    from engine.concern.admission import raise_concern
    from engine.concern.model import RaiseConcernInput, ScheduleTrigger
    from engine.concern.scheduler import due_trigger

    data = RaiseConcernInput(
        type=ConcernType.SCHEDULE,
        priority=Priority.HIGH,
        title="周报提醒",
        goal="发出周报提醒",
        initiator=BOSS,
        trigger=ScheduleTrigger(next_run_at=at(60), every=timedelta(days=7), until=at(60 * 24 * 8)),
    )
    c = raise_concern(data, concern_id="con_s", now=at(0), policy=POLICY).new_concern
    assert due_trigger(c, at(59)) is None
    trig = due_trigger(c, at(61))
    assert trig is not None and trig.kind == TriggerKind.SCHEDULE_DUE
    d = decide(c, trig, out(LoopStep.RESOLVE, goal_met=True, conclusion="已提醒"), at(61), POLICY)
    c = d.new_concern
    # direct (the default mode) with no counterparts: the reminder goes to the initiator
    assert [x.outcome for x in c.executions] == ["sent"]
    assert [(e.person_id, e.text) for e in d.effects if isinstance(e, SendMessage)] == [
        ("p_owner", "定时提醒：周报提醒。")
    ]
    assert c.trigger is not None and c.trigger.next_run_at == at(60 + 7 * 24 * 60)
    assert not [e for e in d.effects if isinstance(e, BackflowMessage)]
    final = due_trigger(c, at(60 * 24 * 8))
    assert final is not None
    last = decide(
        c,
        final,
        out(LoopStep.RESOLVE, goal_met=True),
        at(60 * 24 * 8),
        ConcernPolicy(),
    )
    assert last.new_concern.status == "resolved" and len(last.new_concern.executions) == 2
    assert not [e for e in last.effects if isinstance(e, BackflowMessage)]
