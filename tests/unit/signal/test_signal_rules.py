"""Signals from review facts, the agenda policy's decisions and the reading of answers."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from engine.concern.model import ConcernType, Priority
from engine.signal.answers import (
    CommitmentAnswer,
    DifferenceAnswer,
    read_commitment_answer,
    read_difference_answer,
)
from engine.signal.derive import from_difference, from_fact, kept_title
from engine.signal.model import DecisionKind, Passage, SignalKind
from engine.signal.policy import (
    AgendaPolicy,
    DecideContext,
    RaiseFromSignal,
    Reachable,
    ReportToOwner,
    SupplementConcern,
    decide,
)
from engine.signal.responsibility import find_claims

TZ = "Asia/Shanghai"
SH = ZoneInfo(TZ)
MONDAY = datetime(2026, 3, 16, 10, 0, tzinfo=SH)  # a Monday
PASSAGE = Passage(source_id="chat-1", source_version="v1", locator="chars:0-20")


def commitment(text: str, said_at: datetime = MONDAY):  # type: ignore[no-untyped-def]
    draft = from_fact("commitment", text, PASSAGE, said_at, TZ)
    assert draft is not None
    return draft


@pytest.mark.parametrize(
    ("text", "due", "what"),
    [
        # the worked example's phrase (李四说前端部分周四能提测; docs/rules/loop.md)
        ("李四：前端部分周四能提测", datetime(2026, 3, 19, 18, 0, tzinfo=SH), "前端部分提测"),
        ("我明天把接口文档发给你", datetime(2026, 3, 17, 18, 0, tzinfo=SH), "把接口文档发给你"),
        ("下周一上线灰度版本", datetime(2026, 3, 23, 18, 0, tzinfo=SH), "上线灰度版本"),
        ("3月20日前交付安装包", datetime(2026, 3, 20, 18, 0, tzinfo=SH), "交付安装包"),
        ("下午3点发周报", datetime(2026, 3, 16, 15, 0, tzinfo=SH), "发周报"),
        (
            "Alice: I will send the API doc by Friday",
            datetime(2026, 3, 20, 18, 0, tzinfo=SH),
            "send the API doc",
        ),
        (
            "We can ship the beta tomorrow",
            datetime(2026, 3, 17, 18, 0, tzinfo=SH),
            "ship the beta",
        ),
    ],
)
def test_a_commitment_carries_who_what_and_its_due_time(
    text: str, due: datetime, what: str
) -> None:
    draft = commitment(text)
    assert draft.kind is SignalKind.COMMITMENT
    assert draft.due == due
    assert draft.what == what
    assert draft.passage == PASSAGE


def test_the_speaker_is_who_committed() -> None:
    assert commitment("李四：前端部分周四能提测").who == "李四"
    assert commitment("Alice: I will send the API doc by Friday").who == "Alice"


@pytest.mark.parametrize("text", ["这两天弄完", "尽快提测", "I'll get it done soon", "下周提测"])
def test_a_promise_without_a_day_keeps_due_null(text: str) -> None:
    assert commitment(text).due is None


def test_a_kept_promise_reads_as_done() -> None:
    assert kept_title("前端部分周四能提测", "李四") == "前端部分已提测"
    assert (
        kept_title("I will send the API doc by Friday", "Alice") == "Alice: send the API doc (done)"
    )


@pytest.mark.parametrize(
    ("text", "blocks"),
    [
        ("张三：后端支付模块卡在第三方回调接口", "后端支付模块"),
        ("支付联调被沙箱环境阻塞", "支付联调"),
        ("The release is blocked by the payment API", "The release"),
    ],
)
def test_a_blocker_says_what_it_blocks_and_who_raised_it(text: str, blocks: str) -> None:
    draft = from_fact("blocker", text, PASSAGE, MONDAY, TZ)
    assert draft is not None and draft.kind is SignalKind.BLOCKER
    assert draft.blocks == blocks


@pytest.mark.parametrize("kind", ["decision", "done", "plan", "statement"])
def test_only_four_fact_kinds_become_signals(kind: str) -> None:
    assert from_fact(kind, "我们决定周五发布", PASSAGE, MONDAY, TZ) is None


@pytest.mark.parametrize(
    ("text", "target", "person"),
    [
        ("支付模块改由李四负责", "支付模块", "李四"),
        ("支付模块交给李四负责了", "支付模块", "李四"),
        ("李四接手支付模块", "支付模块", "李四"),
        ("张三：从今天起支付模块现在由李四负责", "支付模块", "李四"),
        ("Li Si now owns the payment module", "payment module", "Li Si"),
        ("The payment module is now owned by Li Si", "payment module", "Li Si"),
    ],
)
def test_a_change_of_the_responsible_person_is_recognised(
    text: str, target: str, person: str
) -> None:
    claims = find_claims(text.split("：", 1)[-1])
    assert [(c.target, c.person) for c in claims] == [(target, person)]


def test_no_claim_in_a_plain_sentence() -> None:
    assert find_claims("支付模块今天提测") == []
    assert find_claims("张三负责支付模块") == []  # a statement, not a change


# --- the agenda ------------------------------------------------------------------------

LISI = Reachable(person_id="p_lisi", display_name="李四", channel="feishu")
OWNER = AgendaPolicy(owner_person_id="p_owner", owner_name="清海", owner_channel="telegram")


def ctx(**kw: object) -> DecideContext:
    base: dict[str, object] = {"signal_id": "sig-1", "person": LISI, "new_concern_id": "con-sig-1"}
    base.update(kw)
    return DecideContext(**base)  # type: ignore[arg-type]


def test_a_commitment_with_a_due_time_raises_a_follow_up_at_that_time() -> None:
    draft = commitment("李四：前端部分周四能提测")
    decided = decide(draft, OWNER, ctx())
    assert decided is not None
    assert decided.decision.kind is DecisionKind.RAISED
    assert decided.decision.label() == "raised con-sig-1"
    assert decided.decision.policy_version == 1
    effect = decided.effect
    assert isinstance(effect, RaiseFromSignal)
    assert effect.first_contact_at == datetime(2026, 3, 19, 18, 0, tzinfo=SH)
    assert effect.request.goal == "确认前端部分提测是否已完成"
    assert effect.request.type is ConcernType.FOLLOWUP
    assert effect.request.initiator is not None
    assert effect.request.initiator.person_id == "p_owner"
    assert [p.person_id for p in effect.request.people] == ["p_lisi"]
    # the messages speak of the promise in its words, never of a signal id
    # the message asks whether it happened, naming the thing (never a signal id)
    assert effect.request.source_detail == "前端部分周四提测了吗"
    assert effect.request.signal_id == "sig-1"


def test_a_commitment_without_a_due_time_is_ignored_with_that_reason() -> None:
    decided = decide(commitment("这两天弄完"), OWNER, ctx())
    assert decided is not None and decided.decision.label() == "ignored: no due time"
    assert decided.effect is None


def test_nobody_reachable_is_ignored_never_matched_by_name() -> None:
    decided = decide(commitment("李四：前端部分周四能提测"), OWNER, ctx(person=None))
    assert decided is not None and decided.decision.label() == "ignored: no reachable person"


def test_a_signal_an_open_concern_covers_supplements_it() -> None:
    decided = decide(
        commitment("李四：前端部分周四能提测"), OWNER, ctx(covering_concern_id="con-9")
    )
    assert decided is not None and decided.decision.label() == "supplemented con-9"
    assert isinstance(decided.effect, SupplementConcern)
    assert decided.effect.fact == "李四：前端部分周四能提测"


def test_a_difference_asks_the_responsible_person() -> None:
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
    zhang = Reachable(person_id="p_zhangsan", display_name="张三")
    decided = decide(draft, OWNER, ctx(person=zhang))
    assert decided is not None and isinstance(decided.effect, RaiseFromSignal)
    assert decided.effect.request.goal == "确认负责人是张三还是李四"
    assert decided.effect.first_contact_at is None  # asked at once
    # the question names the thing (the cited words) and both values
    assert (
        decided.effect.request.source_detail == "「支付模块改由李四负责」，负责人现在是张三还是李四"
    )
    assert decided.effect.request.people[0].person_id == "p_zhangsan"


def test_a_blocker_is_reported_to_the_owner_and_raises_only_when_high() -> None:
    low = from_fact("blocker", "张三：支付模块卡在第三方回调接口", PASSAGE, MONDAY, TZ)
    assert low is not None
    decided = decide(low, OWNER, ctx())
    assert decided is not None and decided.decision.kind is DecisionKind.REPORTED
    assert isinstance(decided.effect, ReportToOwner) and decided.effect.person_id == "p_owner"
    high = from_fact("risk", "张三：支付回调有严重风险，可能无法上线", PASSAGE, MONDAY, TZ)
    assert high is not None
    decided = decide(high, OWNER, ctx())
    assert decided is not None and isinstance(decided.effect, RaiseFromSignal)
    assert decided.effect.request.priority is Priority.HIGH


def test_a_question_is_ignored_by_default_and_the_loop_can_be_off() -> None:
    question = from_fact("question", "张三：回调地址是哪个？", PASSAGE, MONDAY, TZ)
    assert question is not None
    decided = decide(question, OWNER, ctx())
    assert decided is not None and decided.decision.kind is DecisionKind.IGNORED
    off = OWNER.model_copy(update={"loop_enabled": False})
    assert decide(commitment("李四：前端部分周四能提测"), off, ctx()) is None


def test_one_passage_is_one_signal() -> None:
    assert (
        commitment("前端部分周四能提测").fingerprint == commitment("前端部分周四能提测").fingerprint
    )
    other = PASSAGE.model_copy(update={"locator": "chars:21-40"})
    moved = from_fact("commitment", "前端部分周四能提测", other, MONDAY, TZ)
    assert moved is not None and moved.fingerprint != commitment("前端部分周四能提测").fingerprint


# --- answers ---------------------------------------------------------------------------

THURSDAY = datetime(2026, 3, 19, 18, 30, tzinfo=SH)


@pytest.mark.parametrize("text", ["已经提测了", "提测了，刚提的", "done, it's in QA"])
def test_a_kept_commitment_is_read_from_the_answer(text: str) -> None:
    reading = read_commitment_answer(text, THURSDAY, TZ, "前端部分提测")
    assert reading.outcome is CommitmentAnswer.KEPT
    assert reading.happened_at == THURSDAY


def test_the_time_the_person_says_it_happened() -> None:
    reading = read_commitment_answer("昨天就已经提测了", THURSDAY, TZ)
    assert reading.happened_at == datetime(2026, 3, 18, 18, 0, tzinfo=SH)


@pytest.mark.parametrize("text", ["推迟到周五", "改到周五下午", "postponed to Friday"])
def test_a_moved_commitment_carries_the_new_due_time(text: str) -> None:
    reading = read_commitment_answer(text, THURSDAY, TZ)
    assert reading.outcome is CommitmentAnswer.CHANGED
    assert reading.new_due is not None and reading.new_due.date() == datetime(2026, 3, 20).date()


@pytest.mark.parametrize("text", ["我看看", "推迟一下吧", "提测了吗？", "如果明天能修好就提测"])
def test_an_unclear_answer_is_never_guessed(text: str) -> None:
    assert read_commitment_answer(text, THURSDAY, TZ).outcome is CommitmentAnswer.UNCLEAR


def test_not_yet_is_read_as_not_yet() -> None:
    assert read_commitment_answer("还没有", THURSDAY, TZ).outcome is CommitmentAnswer.NOT_YET


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("对，已经交给李四了", DifferenceAnswer.PROPOSED),
        ("是的，李四接手了", DifferenceAnswer.PROPOSED),
        ("不对，还是张三负责", DifferenceAnswer.CURRENT),
        ("张三", DifferenceAnswer.CURRENT),
        ("对", DifferenceAnswer.UNCLEAR),
        ("嗯，我问问", DifferenceAnswer.UNCLEAR),
    ],
)
def test_a_difference_answer_chooses_only_what_it_names(
    text: str, choice: DifferenceAnswer
) -> None:
    assert read_difference_answer(text, "张三", "李四") is choice
