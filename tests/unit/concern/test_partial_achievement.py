"""docs/rules/concerns.md: each row's consequence at the decision level."""

from __future__ import annotations

import pytest

from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.effects import BackflowMessage, ReportToOwner, SendMessage
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep, OutboundDraft
from engine.concern.model import Concern, ConcernStatus
from engine.concern.scheduler import Trigger, TriggerKind, due_trigger
from engine.errors import InvalidInput
from tests.support.concern import POLICY, at, out, person, raised


def contacted(people: int = 1) -> Concern:
    ps = [person("p_zhangsan", "张三"), person("p_lisi", "李四")][:people]
    c = raised(people=ps)
    trig = due_trigger(c, at(0))
    assert trig is not None
    return decide(c, trig, out(LoopStep.FOLLOW_UP), at(0), POLICY).new_concern


def reply(c: Concern, pid: str, text: str, minutes: float = 30) -> tuple[Concern, Trigger]:
    msg = InboundMessage(person_id=pid, text=text, ts=at(minutes), message_id=text)
    return record_inbound(c, msg, at(minutes))


def test_vague_time_is_not_met_and_the_specific_date_is_asked_at_once() -> None:
    c, trig = reply(contacted(), "p_zhangsan", "大概这两天")
    ask = OutboundDraft(person_id="p_zhangsan", text="具体是哪一天呢？")
    d = decide(c, trig, out(LoopStep.FOLLOW_UP, messages=[ask]), at(30), POLICY)
    (msg,) = [e for e in d.effects if isinstance(e, SendMessage)]
    assert msg.text == "具体是哪一天呢？"
    assert d.new_concern.status == ConcernStatus.WAITING_REPLY
    assert not [e for e in d.effects if isinstance(e, BackflowMessage)]


def test_confirmation_meets_the_goal_resolves_and_flows_back() -> None:
    c, trig = reply(contacted(), "p_zhangsan", "好")
    d = decide(
        c, trig, out(LoopStep.RESOLVE, goal_met=True, conclusion="张三确认了"), at(30), POLICY
    )
    assert d.new_concern.status == ConcernStatus.RESOLVED
    (flow,) = [e for e in d.effects if isinstance(e, BackflowMessage)]
    assert "结果：张三确认了" in flow.text and "关键信息：张三：好" in flow.text


def test_indirect_evidence_a_merge_event_meets_the_goal() -> None:
    c = contacted()
    fact = Trigger(
        kind=TriggerKind.RELATED_FACT, event_key="gitlab:mr:42", detail="GitLab merge: v2.0 提测"
    )
    d = decide(
        c,
        fact,
        out(
            LoopStep.RESOLVE,
            goal_met=True,
            conclusion="已提测（GitLab merge 事件）",
            key_information="MR !42 已合并",
        ),
        at(90),
        POLICY,
    )
    assert d.new_concern.status == ConcernStatus.RESOLVED
    assert any(e.detail == "GitLab merge: v2.0 提测" for e in d.new_concern.timeline)
    (flow,) = [e for e in d.effects if isinstance(e, BackflowMessage)]
    assert "关键信息：MR !42 已合并" in flow.text


def test_only_a_done_follows_up_on_b() -> None:
    c, trig = reply(contacted(people=2), "p_lisi", "A 部分做完了")
    d = decide(
        c,
        trig,
        out(LoopStep.WAIT, done_person_ids=["p_lisi"], findings={"p_lisi": "A 部分做完了"}),
        at(30),
        POLICY,
    )
    c = d.new_concern
    assert c.status == ConcernStatus.IN_PROGRESS and c.done_person_ids == ["p_lisi"]
    assert c.next_action is not None and c.next_action.who_person_id == "p_zhangsan"
    (report,) = [e for e in d.effects if isinstance(e, ReportToOwner)]
    assert report.text == "李四说A 部分做完了。张三还没回。"
    # at 张三's deadline the follow-up goes to him only, not to 李四 who is done
    due = due_trigger(c, c.next_action.when)  # type: ignore[arg-type]
    assert due is not None
    chase = decide(c, due, out(LoopStep.FOLLOW_UP), c.next_action.when, POLICY)  # type: ignore[arg-type]
    assert [e.person_id for e in chase.effects if isinstance(e, SendMessage)] == ["p_zhangsan"]


def test_initiator_cancels_dropped_without_back_flow() -> None:
    c, trig = reply(contacted(), "p_owner", "算了不用问了")
    d = decide(c, trig, out(LoopStep.DROP, summary="老板说不用问了"), at(30), POLICY)
    assert d.new_concern.status == ConcernStatus.DROPPED
    assert [e.kind for e in d.effects] == ["agenda"]
    assert d.effects[0].decision.outcome == "dropped"  # type: ignore[union-attr]


def test_resolve_without_goal_met_is_refused() -> None:
    c, trig = reply(contacted(), "p_zhangsan", "嗯")
    with pytest.raises(InvalidInput):
        decide(c, trig, out(LoopStep.RESOLVE, goal_met=False), at(30), POLICY)
