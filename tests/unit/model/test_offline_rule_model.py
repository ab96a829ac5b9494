"""The offline rule model: seed 002 §六 attitude and partial-achievement tables, §七 updates."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from engine.concern.loop_output import Attitude, LoopOutput, LoopStep
from engine.model.offline.achievement import GoalKind, analyse_goal
from engine.model.offline.attitude import read_reply
from engine.model.offline.rule_model import judge_loop
from engine.model.tasks import LogEntry, LoopContext, Person, Signal

SH = ZoneInfo("Asia/Shanghai")
BOSS = Person(person_id="p_owner", display_name="清海")
ZS = Person(person_id="p_zhangsan", display_name="张三")
LS = Person(person_id="p_lisi", display_name="李四")
ASKED = LogEntry(person_id="p_zhangsan", person_name="张三", direction="outbound",
                 text="老板想了解提测什么时候能给？", ts=datetime(2026, 3, 17, 10, 0))


def reply(text: str, person: Person = ZS, minute: int = 5, hour: int = 10) -> LogEntry:
    return LogEntry(person_id=person.person_id, person_name=person.display_name,
                    direction="inbound", text=text, ts=datetime(2026, 3, 17, hour, minute))


def judge(goal: str, *log: LogEntry, people: tuple[Person, ...] = (ZS,),
          signals: tuple[Signal, ...] = (), trigger: str = "reply",
          locale: str = "zh") -> LoopOutput:
    return judge_loop(LoopContext(
        goal=goal, initiator=BOSS, counterparts=list(people), conversation_log=list(log),
        signals=list(signals), created_at=datetime(2026, 3, 17, 9, 0),
        now=datetime(2026, 3, 17, 12, 0), trigger=trigger, locale=locale))


# --- 对方态度识别 ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "attitude"), [
    ("好的，明天给你", Attitude.COMMITTED),
    ("OK, I'll send it tomorrow 3pm", Attitude.COMMITTED),
    ("别催了，周五给你", Attitude.COMMITTED),
    ("我看看", Attitude.VAGUE),
    ("嗯", Attitude.VAGUE),
    ("let me check", Attitude.VAGUE),
    ("大概这两天吧", Attitude.VAGUE),
    ("明天给不了", Attitude.VAGUE),
    ("明天可以吗？", Attitude.VAGUE),
    ("别催了", Attitude.RESISTANT_WORKING),
    ("已经在做了", Attitude.RESISTANT_WORKING),
    ("stop pushing, I'm working on it", Attitude.RESISTANT_WORKING),
])
def test_attitude_table(text: str, attitude: Attitude) -> None:
    assert read_reply(text, datetime(2026, 3, 17, 10, 5), "Asia/Shanghai").attitude is attitude


def test_commitment_waits_until_the_promised_time_without_chasing_early() -> None:
    out = judge("让张三发周报", ASKED, reply("好的，明天给你"))
    assert out.attitude is Attitude.COMMITTED
    assert out.step is LoopStep.WAIT and not out.goal_met
    assert out.next_action is not None
    assert out.next_action.when == datetime(2026, 3, 18, 18, 0, tzinfo=SH)
    assert out.promised_at == out.next_action.when


def test_vague_reply_follows_up_at_the_normal_interval() -> None:
    out = judge("让张三发周报", ASKED, reply("我看看"))
    assert out.attitude is Attitude.VAGUE and out.step is LoopStep.FOLLOW_UP
    assert out.next_action is not None and out.next_action.when is None
    assert out.next_action.who_person_id == "p_zhangsan"


def test_resistant_reply_follows_up_gently() -> None:
    out = judge("让张三发周报", ASKED, reply("别催了，已经在做了"))
    assert out.attitude is Attitude.RESISTANT_WORKING and out.step is LoopStep.FOLLOW_UP
    assert out.next_action is not None and "语气放缓" in out.next_action.what


def test_silence_follows_up_and_escalates_after_three_unanswered_messages() -> None:
    once = judge("让张三发周报", ASKED)
    assert once.attitude is Attitude.SILENT and once.step is LoopStep.FOLLOW_UP
    chases = [ASKED.model_copy(update={"ts": datetime(2026, 3, 17, h)}) for h in (10, 14, 18)]
    thrice = judge("让张三发周报", *chases, trigger="timeout")
    assert thrice.attitude is Attitude.SILENT and thrice.step is LoopStep.ESCALATE


# --- 部分达成判定 ---------------------------------------------------------------------

def test_specific_time_goal_is_not_met_by_these_couple_of_days() -> None:
    out = judge("拿到张三的具体提测时间点", ASKED, reply("大概这两天"))
    assert not out.goal_met and out.step is LoopStep.FOLLOW_UP
    assert out.next_action is not None and "具体日期" in out.next_action.what


def test_specific_time_goal_is_met_by_a_concrete_day() -> None:
    out = judge("拿到张三的具体提测时间点", ASKED, reply("好的，明天给你"))
    assert out.goal_met and out.step is LoopStep.RESOLVE
    assert out.promised_at == datetime(2026, 3, 18, 18, 0, tzinfo=SH)
    assert out.key_information == "好的，明天给你"
    assert "张三" in out.conclusion


def test_confirmation_goal_is_met_by_hao_but_not_by_wo_kankan() -> None:
    assert judge("让张三确认方案", ASKED, reply("好")).step is LoopStep.RESOLVE
    assert judge("get Zhang to confirm the plan", ASKED,
                 reply("Sounds good")).goal_met
    not_yet = judge("让张三确认方案", ASKED, reply("我看看"))
    assert not not_yet.goal_met and not_yet.step is LoopStep.FOLLOW_UP
    assert not judge("让张三确认方案", ASKED, reply("不行")).goal_met


def test_merge_event_is_indirect_evidence_for_ti_ce() -> None:
    merged = Signal(kind="merge", source="gitlab", at=datetime(2026, 3, 17, 11, 0),
                    person_id="p_zhangsan", detail="!42 merged into release/2.0")
    out = judge("张三 v2.0 提测", ASKED, signals=(merged,))
    assert out.goal_met and out.step is LoopStep.RESOLVE
    assert "gitlab" in out.summary
    before = merged.model_copy(update={"at": datetime(2026, 3, 16, 11, 0)})
    assert not judge("张三 v2.0 提测", ASKED, signals=(before,)).goal_met


def test_a_and_b_with_only_a_done_asks_about_b() -> None:
    out = judge("张三完成接口文档和联调", ASKED, reply("接口文档写完了，联调还没开始"))
    assert not out.goal_met and out.step is LoopStep.FOLLOW_UP
    assert out.next_action is not None and "联调" in out.next_action.what
    assert "接口文档" not in out.next_action.what
    assert "接口文档已完成" in out.owner_update
    both = judge("张三完成接口文档和联调", ASKED, reply("接口文档和联调都完成了"))
    assert both.goal_met


def test_initiator_cancelling_drops_without_back_flow() -> None:
    cancel = reply("算了不用问了", person=BOSS)
    out = judge("让张三发周报", ASKED, cancel)
    assert out.step is LoopStep.DROP and not out.goal_met
    assert out.owner_update == ""
    assert judge("让张三发周报", ASKED, reply("never mind", person=BOSS)).step is LoopStep.DROP
    # the counterpart saying 算了 is not a cancellation
    assert judge("让张三发周报", ASKED, reply("算了，我明天给你")).step is not LoopStep.DROP


def test_goal_analysis_picks_the_table_row() -> None:
    assert analyse_goal("拿到张三的具体提测时间点").kind is GoalKind.SPECIFIC_TIME
    assert analyse_goal("让张三确认周会时间调整").kind is GoalKind.CONFIRMATION
    assert analyse_goal("完成 A 和 B").parts == ["A", "B"]
    assert analyse_goal("v2.0 提测").evidence_kinds >= {"merge"}


# --- 中途汇报 -------------------------------------------------------------------------

def test_partial_result_across_people_reports_to_the_owner() -> None:
    asked_ls = ASKED.model_copy(update={"person_id": "p_lisi", "person_name": "李四"})
    out = judge("v2.0 什么时候能提测", ASKED, asked_ls, reply("前端部分周四能提测", person=LS),
                people=(ZS, LS))
    assert not out.goal_met
    assert out.owner_update == "李四确认了，张三还没回。"
    assert out.next_action is not None and out.next_action.who_person_id == "p_zhangsan"
    quiet = judge("v2.0 什么时候能提测", ASKED, asked_ls, reply("前端部分周四能提测", person=LS),
                  people=(ZS, LS), trigger="timeout")
    assert quiet.owner_update == ""


def test_question_needing_the_initiator_goes_to_the_owner() -> None:
    out = judge("让张三确认周一上午开会", ASKED, reply("上午有会，能换下午吗？"))
    assert out.step is LoopStep.WAIT
    assert out.next_action is not None and out.next_action.who_person_id == "p_owner"
    assert "需要你决定" in out.owner_update and "能换下午吗" in out.owner_update


def test_english_locale_writes_english_text() -> None:
    out = judge("get the release date", ASKED, reply("stop pushing, I'm working on it"),
                locale="en")
    assert out.next_action is not None and out.next_action.what.startswith("Ask 张三")


def test_the_same_context_always_gives_the_same_output() -> None:
    log = (ASKED, reply("好的，明天给你"))
    assert judge("让张三发周报", *log) == judge("让张三发周报", *log)
