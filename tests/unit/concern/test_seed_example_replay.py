"""docs/rules/concerns.md replayed at the decision level with a moved `now`.

老板: 帮我问一下张三李四，v2.0 什么时候能提测 — every message the boss receives, in order
and wording: created, contacted, partial + timeout_retry, the owner_update, and the final
back-flow with its four fields. Every decision is also run twice: the rerun is a no-op.
"""

from __future__ import annotations

from datetime import datetime

from engine.concern.admission import raise_concern
from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.agenda import Agenda, apply_update
from engine.concern.effects import (
    AgendaUpdate,
    BackflowMessage,
    Decision,
    ReportToOwner,
    SendMessage,
)
from engine.concern.loop import decide
from engine.concern.loop_output import LoopOutput, LoopStep, NextAction, OutboundDraft
from engine.concern.model import (
    Concern,
    ConcernStatus,
    ConcernType,
    DelegationSettings,
    Priority,
    RaiseConcernInput,
)
from engine.concern.scheduler import Trigger, scan_due_concerns, scan_timeouts
from tests.support.concern import BOSS, POLICY, at, person

OWNER_UPDATE = (
    "张三回复了：后端支付模块卡在第三方回调接口，他提了个临时方案——先用 mock 跑通主流程，"
    "上线后第一周人工对账。需要你决定：接受临时方案赶周五，还是等沙箱到了再上。"
)


class Boss:
    """What reaches the boss: reports at their delivery time, back-flow at once."""

    def __init__(self) -> None:
        self.inbox: list[tuple[datetime, str, str]] = []
        self.agenda = Agenda()

    def take(self, decision: Decision, now: datetime) -> None:
        for e in decision.effects:
            if isinstance(e, ReportToOwner):
                assert e.recipient.person_id == "p_owner"
                self.inbox.append((e.deliver_at, "+".join(e.report_kinds), e.text))
            elif isinstance(e, BackflowMessage):
                assert (e.recipient.person_id, e.recipient.channel) == ("p_owner", "telegram")
                self.inbox.append((now, "backflow", e.text))
            elif isinstance(e, AgendaUpdate):
                self.agenda = apply_update(self.agenda, e)


def turn(
    boss: Boss, concern: Concern, trigger: Trigger, output: LoopOutput, now: datetime
) -> Decision:
    decision = decide(concern, trigger, output, now, POLICY)
    rerun = decide(decision.new_concern, trigger, output, now, POLICY)
    assert rerun.noop and rerun.effects == () and rerun.new_concern == decision.new_concern
    boss.take(decision, now)
    return decision


def reply(concern: Concern, pid: str, text: str, now: datetime) -> tuple[Concern, Trigger]:
    msg = InboundMessage(person_id=pid, text=text, ts=now, channel="feishu", message_id=text)
    return record_inbound(concern, msg, now)


def test_seed_complete_example_boss_receives_the_exact_sequence() -> None:
    boss = Boss()
    data = RaiseConcernInput(
        type=ConcernType.DELEGATION,
        priority=Priority.HIGH,
        title="问张三和李四 v2.0 提测时间",
        goal="拿到张三和李四各自 v2.0 的提测时间",
        source_detail="帮我问一下张三李四，v2.0 什么时候能提测",
        initiator=BOSS,
        people=[person("p_zhangsan", "张三"), person("p_lisi", "李四")],
        delegation=DelegationSettings(expects_reply_from=["p_zhangsan", "p_lisi"]),
    )
    created = raise_concern(data, concern_id="con_v2", now=at(0), policy=POLICY)
    boss.take(created, at(0))
    c = created.new_concern
    assert [r.concern_id for r in boss.agenda.concern_refs] == ["con_v2"]

    # ... 30 分钟后: the due scan picks it up; the loop contacts both.
    (job,) = scan_due_concerns([c], at(30))
    d = turn(
        boss,
        c,
        job.trigger,
        LoopOutput(
            goal_met=False,
            step=LoopStep.FOLLOW_UP,
            messages=[
                OutboundDraft(
                    person_id="p_zhangsan", text="你好，老板想了解 v2.0 什么时候能提测？"
                ),
                OutboundDraft(person_id="p_lisi", text="你好，老板想了解 v2.0 什么时候能提测？"),
            ],
        ),
        at(30),
    )
    c = d.new_concern
    assert [e.person_name for e in d.effects if isinstance(e, SendMessage)] == ["张三", "李四"]
    assert c.status == ConcernStatus.WAITING_REPLY
    assert c.next_action is not None and c.next_action.when == at(150)  # high: 2 h

    # ... 2 小时后，李四回复了; 张三 is due for his first follow-up at the same moment.
    assert scan_timeouts([c], at(150))  # the scan would enqueue the timeout too
    c, trig = reply(c, "p_lisi", "前端部分周四能提测", at(150))
    d = turn(
        boss,
        c,
        trig,
        LoopOutput(
            goal_met=False,
            step=LoopStep.FOLLOW_UP,
            messages=[
                OutboundDraft(person_id="p_zhangsan", text="张三，v2.0 后端什么时候能提测？")
            ],
            done_person_ids=["p_lisi"],
            findings={"p_lisi": "前端部分周四能提测"},
        ),
        at(150),
    )
    c = d.new_concern
    assert c.followup_count == 1
    assert scan_timeouts([c], at(150)) == []  # the reply turn moved the deadline: 12:30 + 4 h
    assert c.next_action is not None and c.next_action.when == at(390)

    # ... 又过了 1 小时，张三回复了复杂内容.
    c, trig = reply(
        c,
        "p_zhangsan",
        "后端支付模块卡在第三方回调，沙箱还没到。"
        "临时方案：先用 mock 跑通主流程，上线后第一周人工对账。",
        at(210),
    )
    d = turn(
        boss,
        c,
        trig,
        LoopOutput(
            goal_met=False,
            step=LoopStep.WAIT,
            owner_update=OWNER_UPDATE,
            next_action=NextAction(what="等待老板决定", who_person_id="p_owner"),
        ),
        at(210),
    )
    c = d.new_concern
    assert c.next_action is not None and c.next_action.who_person_id == "p_owner"

    # The boss decides; the loop relays it to 张三 (no report: nothing new to tell the boss).
    c, trig = reply(c, "p_owner", "接受临时方案，赶周五", at(240))
    d = turn(
        boss,
        c,
        trig,
        LoopOutput(
            goal_met=False,
            step=LoopStep.FOLLOW_UP,
            messages=[
                OutboundDraft(person_id="p_zhangsan", text="老板同意先用 mock 方案，周五能提测吗？")
            ],
        ),
        at(240),
    )
    c = d.new_concern
    assert [e.kind for e in d.effects] == ["send_message", "agenda"]  # status in the ref

    c, trig = reply(c, "p_zhangsan", "好的，按临时方案周五提测", at(260))
    d = turn(
        boss,
        c,
        trig,
        LoopOutput(
            goal_met=True,
            step=LoopStep.RESOLVE,
            conclusion="v2.0 周五提测（前端周四，后端先用 mock 方案）",
            key_information="李四：前端部分周四能提测；张三：后端先用 mock 跑通主流程，周五提测",
            done_person_ids=["p_zhangsan"],
        ),
        at(260),
    )
    assert d.new_concern.status == ConcernStatus.RESOLVED

    assert boss.inbox == [
        (at(0), "created", "好的，我来联系张三和李四，有进展及时同步给你。"),
        (at(30), "contacted", "已经联系张三和李四了，等他们回复。"),
        (
            at(150),
            "partial+timeout_retry",
            "李四说前端部分周四能提测。张三还没回复，我再跟一下。",
        ),
        (at(210), "owner_update", OWNER_UPDATE),
        (
            at(260),
            "backflow",
            "[回流] 问张三和李四 v2.0 提测时间\n"
            "结果：v2.0 周五提测（前端周四，后端先用 mock 方案）\n"
            "关键信息：李四：前端部分周四能提测；张三：后端先用 mock 跑通主流程，周五提测\n"
            "耗时：4小时20分钟",
        ),
    ]
    assert boss.agenda.concern_refs == ()
    assert [(r.concern_id, r.outcome) for r in boss.agenda.recent_decisions] == [
        ("con_v2", "resolved")
    ]
