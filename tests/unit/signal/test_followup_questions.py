"""A signal's follow-up asks a question that can be answered, naming the thing, and its goal
is one a reply can meet: a promise asked whether it happened, a difference by object and both
values, a blocker whether it is resolved ("已经解决了" meets it)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from engine.concern.admission import raise_concern
from engine.concern.effects import ReportToOwner
from engine.concern.policy import ConcernPolicy
from engine.concern.wording import counterpart_message
from engine.llm.tasks import LogEntry, LoopContext, Person
from engine.offline.rule_model import judge_loop
from engine.signal.derive import from_difference, from_fact
from engine.signal.model import Passage
from engine.signal.policy import (
    AgendaPolicy,
    DecideContext,
    RaiseFromSignal,
    Reachable,
    decide,
    goal_of,
)
from engine.signal.stored import new_signals
from engine.signal.wording import subject_of

TZ = "Asia/Shanghai"
SH = ZoneInfo(TZ)
MONDAY = datetime(2026, 3, 16, 10, 0, tzinfo=SH)
PASSAGE = Passage(source_id="chat-1", source_version="v1", locator="chars:0-20")
OWNER = AgendaPolicy(owner_person_id="p_owner", owner_name="王五", owner_channel="feishu")


def first_message(draft, person: Reachable) -> str:  # type: ignore[no-untyped-def]
    ctx = DecideContext(signal_id="sig-1", person=person, new_concern_id="con-sig-1")
    decided = decide(draft, OWNER, ctx)
    assert decided is not None and isinstance(decided.effect, RaiseFromSignal)
    made = raise_concern(
        decided.effect.request, concern_id="con-sig-1", now=MONDAY, policy=ConcernPolicy()
    )
    return counterpart_message(made.new_concern, "initial")


def test_a_promise_is_asked_whether_it_happened_naming_the_thing() -> None:
    draft = from_fact("commitment", "李四：前端部分周四能提测", PASSAGE, MONDAY, TZ)
    lisi = Reachable(person_id="p_lisi", display_name="李四", channel="feishu")
    assert first_message(draft, lisi) == "李四，前端部分周四提测了吗？"


def test_a_difference_is_asked_by_its_object_and_both_values() -> None:
    draft = from_difference(
        target_kind="relation",
        target_id="rel-1",
        field="负责人",
        confirmed_value="张三",
        proposed_value="李四",
        text="支付模块改由李四负责",
        passage=PASSAGE,
        said_at=MONDAY,
    )
    zhang = Reachable(person_id="p_zs", display_name="张三", channel="feishu")
    asked = first_message(draft, zhang)
    assert asked == "张三，「支付模块改由李四负责」，负责人现在是张三还是李四？"


def blocker_met(reply: str) -> bool:
    draft = from_fact("blocker", "张三：支付模块卡在第三方回调接口，无法上线", PASSAGE, MONDAY, TZ)
    assert draft is not None
    goal = goal_of(draft)
    assert goal == "确认支付模块卡在第三方回调接口是否已解决"
    asked = MONDAY + timedelta(hours=1)
    ctx = LoopContext(
        goal=goal,
        now=asked + timedelta(minutes=5),
        counterparts=[Person(person_id="p_zs", display_name="张三")],
        initiator=Person(person_id="p_owner", display_name="王五"),
        conversation_log=[
            LogEntry(person_id="p_zs", direction="outbound", text="?", ts=asked),
            LogEntry(person_id="p_zs", direction="inbound", text=reply, ts=asked),
        ],
        replied_by="p_zs",
        subject=subject_of(
            new_signals([draft], scope="p1", run_id="r", result_id="res", now=MONDAY)[0]
        ),
    )
    return judge_loop(ctx).goal_met


def test_a_blocker_is_met_when_the_reply_says_it_is_resolved() -> None:
    assert blocker_met("已经解决了")
    assert blocker_met("回调接口修好了")
    assert not blocker_met("还在卡着")
    assert not blocker_met("解决了吗？")
    assert not blocker_met("如果明天沙箱到了就能解决")


def test_the_owner_is_not_sent_acknowledgements_for_what_the_agenda_raised() -> None:
    draft = from_fact("commitment", "李四：前端部分周四能提测", PASSAGE, MONDAY, TZ)
    lisi = Reachable(person_id="p_lisi", display_name="李四", channel="feishu")
    decided = decide(draft, OWNER, DecideContext(signal_id="s", person=lisi, new_concern_id="c"))
    assert decided is not None and isinstance(decided.effect, RaiseFromSignal)
    request = decided.effect.request
    made = raise_concern(request, concern_id="c", now=MONDAY, policy=ConcernPolicy())
    assert not [e for e in made.effects if isinstance(e, ReportToOwner)]  # no "好的，我来联系李四"
    asked_by_a_person = request.model_copy(update={"agenda_role": "tracking", "signal_id": None})
    made = raise_concern(asked_by_a_person, concern_id="c2", now=MONDAY, policy=ConcernPolicy())
    [ack] = [e for e in made.effects if isinstance(e, ReportToOwner)]
    assert ack.text == "好的，我来联系李四，有进展及时同步给你。"


def test_a_holder_difference_is_asked_by_the_thing_and_both_holders() -> None:
    draft = from_difference(
        target_kind="relation",
        target_id="rel-1",
        field="负责人",
        confirmed_value="张三",
        proposed_value="李四",
        text="支付模块 负责人：张三 → 李四",  # what a review's holder difference records
        passage=PASSAGE,
        said_at=MONDAY,
    )
    zhang = Reachable(person_id="p_zs", display_name="张三", channel="feishu")
    assert first_message(draft, zhang) == "张三，支付模块现在由谁负责：张三还是李四？"


def test_the_back_flow_states_the_answers_substance() -> None:
    asked = MONDAY + timedelta(days=3)
    ctx = LoopContext(
        goal="确认负责人是张三还是李四",
        now=asked,
        counterparts=[Person(person_id="p_zs", display_name="张三")],
        initiator=Person(person_id="p_owner", display_name="王五"),
        conversation_log=[
            LogEntry(person_id="p_zs", direction="outbound", text="?", ts=asked),
            LogEntry(
                person_id="p_zs",
                person_name="张三",
                direction="inbound",
                text="对，已经交给李四了",
                ts=asked,
            ),
        ],
        replied_by="p_zs",
    )
    out = judge_loop(ctx)
    assert out.goal_met and out.conclusion == "张三答复：对，已经交给李四了"  # not "张三确认了"
