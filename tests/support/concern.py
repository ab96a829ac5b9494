"""Hand-built concerns, loop outputs and times for the concern engine's unit tests."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from engine.concern.admission import raise_concern
from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.effects import Decision
from engine.concern.loop import decide
from engine.concern.loop_input import loop_input
from engine.concern.loop_output import LoopOutput, LoopStep
from engine.concern.model import (
    Concern,
    ConcernType,
    DelegationSettings,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, due_trigger
from engine.offline.rule_model import judge_loop

TZ = ZoneInfo("Asia/Shanghai")
# Monday 2026-03-16, 10:00 in Shanghai: inside working hours.
T0 = datetime(2026, 3, 16, 10, 0, tzinfo=TZ)
POLICY = ConcernPolicy()
# Every sending window open all day, every day: for tests of the interval table alone.
ANY_HOUR = ConcernPolicy(
    work_start=time(0),
    work_end=time.max,
    workdays=frozenset(range(7)),
    extended_start=time(0),
    extended_end=time.max,
)
BOSS = Initiator(name="老板", channel="telegram", channel_user_id="123", person_id="p_owner")


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def person(pid: str, name: str, channel: str = "feishu") -> PersonRef:
    return PersonRef(person_id=pid, display_name=name, last_channel=channel)


def raised(
    *,
    priority: Priority = Priority.MEDIUM,
    type_: ConcernType = ConcernType.DELEGATION,
    initiator: Initiator | None = BOSS,
    people: list[PersonRef] | None = None,
    now: datetime = T0,
    policy: ConcernPolicy = POLICY,
    concern_id: str = "con_1",
) -> Concern:
    people = people if people is not None else [person("p_zhangsan", "张三")]
    data = RaiseConcernInput(
        type=type_,
        priority=priority,
        title="联系张三确认提测时间",
        goal="拿到张三的具体提测时间点",
        source_detail="帮我问问张三提测什么时候能给",
        initiator=initiator,
        people=people,
        delegation=DelegationSettings(expects_reply_from=[p.person_id for p in people]),
    )
    return raise_concern(data, concern_id=concern_id, now=now, policy=policy).new_concern


def out(step: LoopStep = LoopStep.WAIT, **kw: object) -> LoopOutput:
    return LoopOutput.model_validate({"goal_met": False, "step": step, **kw})


def contacted_concern(priority: Priority = Priority.MEDIUM, **kw: object) -> Concern:
    """Raised at T0 and contacted at once (the first loop turn, template message)."""
    c = raised(priority=priority, **kw)  # type: ignore[arg-type]
    trig = due_trigger(c, at(0))
    assert trig is not None
    return decide(c, trig, out(LoopStep.FOLLOW_UP), at(0), POLICY).new_concern


def reply_from(
    c: Concern, text: str, minutes: float, pid: str = "p_zhangsan"
) -> tuple[Concern, Trigger]:
    msg = InboundMessage(person_id=pid, text=text, ts=at(minutes), message_id=f"{pid}@{minutes}")
    return record_inbound(c, msg, at(minutes))


def offline_turn(
    c: Concern, trig: Trigger, now: datetime, policy: ConcernPolicy = POLICY
) -> Decision:
    """One loop turn judged by the offline rule model from the context the job would send."""
    judged = judge_loop(loop_input(c, trig, now, policy))
    return decide(c, trig, judged, now, policy)
