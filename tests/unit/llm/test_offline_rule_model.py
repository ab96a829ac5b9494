"""The offline rule model: docs/rules/concerns.md attitude and partial-achievement tables, owner updates."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from engine.concern.loop_output import Attitude, LoopOutput, LoopStep
from engine.llm.tasks import LogEntry, LoopContext, Person, Signal
from engine.offline.achievement import GoalKind, analyse_goal
from engine.offline.attitude import read_reply
from engine.offline.rule_model import judge_loop

SH = ZoneInfo("Asia/Shanghai")
BOSS = Person(person_id="p_owner", display_name="清海")
ZS = Person(person_id="p_zhangsan", display_name="张三")
LS = Person(person_id="p_lisi", display_name="李四")
ASKED = LogEntry(
    person_id="p_zhangsan",
    person_name="张三",
    direction="outbound",
    text="老板想了解提测什么时候能给？",
    ts=datetime(2026, 3, 17, 10, 0),
)


def reply(text: str, person: Person = ZS, minute: int = 5, hour: int = 10) -> LogEntry:
    return LogEntry(
        person_id=person.person_id,
        person_name=person.display_name,
        direction="inbound",
        text=text,
        ts=datetime(2026, 3, 17, hour, minute),
    )


def judge(
    goal: str,
    *log: LogEntry,
    people: tuple[Person, ...] = (ZS,),
    signals: tuple[Signal, ...] = (),
    trigger: str = "reply",
    locale: str = "zh",
) -> LoopOutput:
    return judge_loop(
        LoopContext(
            goal=goal,
            initiator=BOSS,
            counterparts=list(people),
            conversation_log=list(log),
            signals=list(signals),
            created_at=datetime(2026, 3, 17, 9, 0),
            now=datetime(2026, 3, 17, 12, 0),
            trigger=trigger,
            locale=locale,
        )
    )


# --- 对方态度识别 (every row: the phrases of docs/rules/concerns.md#the-loop and more) ---------------------

COMMITTED = [
    "好的，明天给你",
    "周五下午给你",
    "明天上午发你",
    "OK, I'll send it tomorrow 3pm",
    "别催了，周五给你",
]
VAGUE = ["我看看", "嗯", "let me check", "再说吧", "回头看一下", "明天给不了", "明天可以吗？"]
RESISTANT = [
    "别催了",
    "已经在做了",
    "别催了，已经在做了",
    "在弄了在弄了",
    "stop pushing, I'm working on it",
]


@pytest.mark.parametrize(
    ("text", "attitude"),
    [
        *[(t, Attitude.COMMITTED) for t in COMMITTED],
        *[(t, Attitude.VAGUE) for t in [*VAGUE, "大概这两天吧"]],
        *[(t, Attitude.RESISTANT_WORKING) for t in RESISTANT],
    ],
)
def test_attitude_table(text: str, attitude: Attitude) -> None:
    assert read_reply(text, datetime(2026, 3, 17, 10, 5), "Asia/Shanghai").attitude is attitude


@pytest.mark.parametrize("text", COMMITTED[:4])
def test_commitment_waits_until_the_promised_time_without_chasing_early(text: str) -> None:
    out = judge("让张三发周报", ASKED, reply(text))
    assert out.attitude is Attitude.COMMITTED
    assert out.step is LoopStep.WAIT and not out.goal_met and out.messages == []
    assert out.next_action is not None and out.next_action.when is not None
    assert out.next_action.when > datetime(2026, 3, 17, 12, 0, tzinfo=SH)
    assert out.promised_at == out.next_action.when


def test_commitment_to_tomorrow_means_the_end_of_tomorrows_working_day() -> None:
    out = judge("让张三发周报", ASKED, reply("好的，明天给你"))
    assert out.next_action is not None
    assert out.next_action.when == datetime(2026, 3, 18, 18, 0, tzinfo=SH)


@pytest.mark.parametrize("text", ["我看看", "嗯", "let me check", "再说吧", "回头看一下"])
def test_vague_reply_is_not_chased_at_once_the_normal_interval_applies(text: str) -> None:
    out = judge("让张三发周报", ASKED, reply(text))
    assert out.attitude is Attitude.VAGUE
    assert out.step is LoopStep.WAIT and out.messages == []
    assert out.next_action is not None and out.next_action.when is None  # the table decides
    assert out.next_action.who_person_id == "p_zhangsan"


@pytest.mark.parametrize("text", RESISTANT)
def test_resistant_reply_is_left_alone_for_a_doubled_interval(text: str) -> None:
    out = judge("让张三发周报", ASKED, reply(text))
    assert out.attitude is Attitude.RESISTANT_WORKING
    assert out.step is LoopStep.WAIT and out.messages == []
    assert out.next_action is not None and out.next_action.when is None
    assert "语气放缓" in out.next_action.what


def test_vague_reply_to_a_time_goal_without_a_time_is_not_asked_for_a_date_at_once() -> None:
    out = judge("拿到张三的具体提测时间点", ASKED, reply("我看看"))
    assert out.step is LoopStep.WAIT and out.messages == []


@pytest.mark.parametrize("unanswered", [1, 2, 3, 5])
def test_silence_follows_up_and_leaves_the_limit_to_the_interval_table(unanswered: int) -> None:
    chases = [
        ASKED.model_copy(update={"ts": datetime(2026, 3, 17, 8 + h)}) for h in range(unanswered)
    ]
    out = judge("让张三发周报", *chases, trigger="timeout")
    assert out.attitude is Attitude.SILENT and out.step is LoopStep.FOLLOW_UP
    assert out.messages == []  # the engine's templates, through its gates
    assert all(":" not in r or r.startswith(("goal", "p_")) for r in out.reasons)


# --- 部分达成判定 (every row) ---------------------------------------------------------


@pytest.mark.parametrize("text", ["大概这两天", "过几天吧", "下周吧", "尽快", "应该快了，这几天"])
def test_specific_time_goal_is_not_met_by_a_vague_time_and_asks_for_a_date(text: str) -> None:
    out = judge("拿到张三的具体提测时间点", ASKED, reply(text))
    assert not out.goal_met and out.step is LoopStep.FOLLOW_UP
    assert out.next_action is not None and "具体日期" in out.next_action.what
    (msg,) = out.messages
    assert msg.person_id == "p_zhangsan"
    assert msg.text == "好的，能给个具体日期吗？比如周几或几号。"


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("好的，明天给你", datetime(2026, 3, 18, 18, 0, tzinfo=SH)),
        ("周四能提测", datetime(2026, 3, 19, 18, 0, tzinfo=SH)),
        ("3月20日下午提测", datetime(2026, 3, 20, 18, 0, tzinfo=SH)),
    ],
)
def test_specific_time_goal_is_met_by_a_concrete_day(text: str, when: datetime) -> None:
    out = judge("拿到张三的具体提测时间点", ASKED, reply(text))
    assert out.goal_met and out.step is LoopStep.RESOLVE
    assert out.promised_at == when
    assert out.key_information == f"张三：{text}"
    assert out.conclusion == "拿到了张三的具体时间"


@pytest.mark.parametrize("text", ["好", "好的", "行，没问题", "可以", "OK"])
def test_confirmation_goal_is_met_by_hao_and_resolves(text: str) -> None:
    out = judge("让张三确认方案", ASKED, reply(text))
    assert out.goal_met and out.step is LoopStep.RESOLVE
    assert out.conclusion == "张三确认了" and out.done_person_ids == ["p_zhangsan"]


@pytest.mark.parametrize("text", ["我看看", "嗯", "不行"])
def test_confirmation_goal_is_not_met_by_a_vague_or_negative_reply(text: str) -> None:
    assert not judge("让张三确认方案", ASKED, reply(text)).goal_met


def test_english_confirmation_is_met_by_sounds_good() -> None:
    assert judge("get Zhang to confirm the plan", ASKED, reply("Sounds good")).goal_met


@pytest.mark.parametrize("kind", ["merge", "merge_request.merged", "mr_merged"])
def test_merge_event_is_indirect_evidence_for_ti_ce(kind: str) -> None:
    merged = Signal(
        kind=kind,
        source="gitlab",
        at=datetime(2026, 3, 17, 11, 0),
        person_id="p_zhangsan",
        detail="!42 merged into release/2.0",
    )
    for goal in ("张三 v2.0 提测", "确认张三把 v2.0 提测"):
        out = judge(goal, ASKED, signals=(merged,), trigger="signal")
        assert out.goal_met and out.step is LoopStep.RESOLVE
        assert out.conclusion == f"gitlab出现 {kind} 事件，视为已达成"
    before = merged.model_copy(update={"at": datetime(2026, 3, 16, 11, 0)})
    assert not judge("张三 v2.0 提测", ASKED, signals=(before,)).goal_met
    other = merged.model_copy(update={"person_id": "p_lisi"})
    assert not judge("张三 v2.0 提测", ASKED, signals=(other,)).goal_met


@pytest.mark.parametrize(
    "text", ["接口文档写完了，联调还没开始", "接口文档搞定了", "接口文档做完了，联调还在等后端"]
)
def test_a_and_b_with_only_a_done_is_not_met_and_asks_about_b(text: str) -> None:
    out = judge("张三完成接口文档和联调", ASKED, reply(text))
    assert not out.goal_met and out.step is LoopStep.FOLLOW_UP
    assert out.next_action is not None and "联调" in out.next_action.what
    assert "接口文档" not in out.next_action.what
    (msg,) = out.messages
    assert msg.text == "收到，接口文档已经好了。联调现在进展怎么样？"
    assert out.owner_update == "张三：接口文档已完成，联调还没有进展。"


def test_a_and_b_both_done_is_met() -> None:
    both = judge("张三完成接口文档和联调", ASKED, reply("接口文档和联调都完成了"))
    assert both.goal_met and both.conclusion == "张三都完成了"


@pytest.mark.parametrize(
    "text",
    ["算了不用问了", "不用问了，我自己找他", "算了，取消吧", "never mind, I'll ask him myself"],
)
def test_initiator_cancelling_drops_without_back_flow(text: str) -> None:
    out = judge("让张三发周报", ASKED, reply(text, person=BOSS))
    assert out.step is LoopStep.DROP and not out.goal_met
    assert out.owner_update == "" and out.messages == []


def test_the_counterpart_saying_suanle_is_not_a_cancellation() -> None:
    assert judge("让张三发周报", ASKED, reply("算了，我明天给你")).step is not LoopStep.DROP


def test_goal_analysis_picks_the_table_row() -> None:
    assert analyse_goal("拿到张三的具体提测时间点").kind is GoalKind.SPECIFIC_TIME
    assert analyse_goal("让张三确认周会时间调整").kind is GoalKind.CONFIRMATION
    assert analyse_goal("完成 A 和 B").parts == ["A", "B"]
    assert analyse_goal("v2.0 提测").evidence_kinds >= {"merge"}


# --- 中途汇报 -------------------------------------------------------------------------


def test_partial_result_across_people_settles_the_one_who_answered() -> None:
    asked_ls = ASKED.model_copy(update={"person_id": "p_lisi", "person_name": "李四"})
    out = judge(
        "v2.0 什么时候能提测",
        ASKED,
        asked_ls,
        reply("前端部分周四能提测。", person=LS),
        people=(ZS, LS),
    )
    assert not out.goal_met and out.step is LoopStep.FOLLOW_UP
    # the engine writes "李四说前端部分周四能提测。张三还没回复，我再跟一下。" from these
    assert out.done_person_ids == ["p_lisi"]
    assert out.findings == {"p_lisi": "前端部分周四能提测"}
    assert out.owner_update == ""
    assert out.next_action is not None and out.next_action.who_person_id == "p_zhangsan"


def test_question_needing_the_initiator_goes_to_the_owner() -> None:
    out = judge("让张三确认周一上午开会", ASKED, reply("上午有会，能换下午吗？"))
    assert out.step is LoopStep.WAIT
    assert out.next_action is not None and out.next_action.who_person_id == "p_owner"
    assert out.owner_update == "张三说：「上午有会，能换下午吗？」需要你决定。"


def test_blocker_with_a_proposal_asks_the_initiator_to_decide() -> None:
    text = (
        "后端支付模块卡在第三方回调接口，沙箱还没到。"
        "临时方案：先用 mock 跑通主流程，上线后第一周人工对账。"
    )
    out = judge("拿到张三的具体提测时间点", ASKED, reply(text))
    assert out.step is LoopStep.WAIT and not out.goal_met
    assert out.owner_update == (
        f"张三回复了：{text[:-1]}。他提了个方案，需要你决定：接受这个方案，还是等卡点解决了再推进？"
    )
    assert out.next_action is not None and out.next_action.who_person_id == "p_owner"


def test_a_decision_is_asked_once_not_again_on_a_later_timeout() -> None:
    text = "卡在第三方回调，临时方案是先用 mock。"
    later = judge("拿到张三的具体提测时间点", ASKED, reply(text), trigger="timeout")
    assert later.owner_update == ""


def test_the_initiators_answer_is_relayed_to_the_pending_counterpart() -> None:
    ctx = LoopContext(
        goal="拿到张三的具体提测时间点",
        request="帮我问问张三提测什么时候能给",
        initiator=Person(person_id="p_owner", display_name="老板"),
        counterparts=[ZS],
        conversation_log=[
            ASKED,
            reply("卡在第三方回调，临时方案是先用 mock。"),
            reply("接受临时方案，赶周五", person=BOSS, minute=30),
        ],
        now=datetime(2026, 3, 17, 12, 0),
        trigger="reply",
        replied_by="p_owner",
    )
    out = judge_loop(ctx)
    assert out.step is LoopStep.FOLLOW_UP and out.owner_update == ""
    (msg,) = out.messages
    assert (msg.person_id, msg.text) == (
        "p_zhangsan",
        "老板回复了：接受临时方案，赶周五。那提测什么时候能给？",
    )


def test_english_locale_writes_english_text() -> None:
    out = judge(
        "get the release date", ASKED, reply("stop pushing, I'm working on it"), locale="en"
    )
    assert out.next_action is not None and out.next_action.what.startswith("Ask 张三")
    dated = judge("get the release date", ASKED, reply("soon"), locale="en")
    assert dated.messages[0].text == "Thanks — could you give me a specific date, e.g. which day?"


def test_the_same_context_always_gives_the_same_output() -> None:
    log = (ASKED, reply("好的，明天给你"))
    assert judge("让张三发周报", *log) == judge("让张三发周报", *log)
