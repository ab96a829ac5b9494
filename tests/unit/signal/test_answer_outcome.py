"""What a signal's concern writes back when it ends, decided from the
concern and the signal alone: a kept commitment is an event citing the answer's line, a moved
one an event plus a new commitment signal, a difference answered the person's correction;
dropped, escalated or unclear asserts nothing. And the offline model's goal check resolves a
signal's concern only on an answer that says something definite (docs/rules/concerns.md)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engine.concern.model import (
    Concern,
    ConcernStatus,
)
from engine.errors import InvalidInput
from engine.llm.tasks import LogEntry, LoopContext, Person
from engine.offline.rule_model import judge_loop
from engine.signal.answers import DifferenceAnswer, read_difference_answer
from engine.signal.derive import from_difference, from_fact
from engine.signal.model import Passage, SignalKind, SignalStatus
from engine.signal.outcome import (
    Review,
    conversation_lines,
    conversation_source,
    conversation_speakers,
    decide_outcome,
    needs_review,
    suggestion_for,
)
from engine.signal.stored import Signal, new_signals
from engine.story.inputs import SourceInput, parse_input
from engine.story.models import (
    Actor,
    ActorKind,
    Entity,
    ObjectKind,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
)
from tests.support.signal_answers import FOLLOW_UP, ended_concern

TZ = "Asia/Shanghai"
SH = ZoneInfo(TZ)
MONDAY = datetime(2026, 3, 16, 10, 0, tzinfo=SH)
THURSDAY = datetime(2026, 3, 19, 18, 0, tzinfo=SH)
ANSWERED = THURSDAY + timedelta(minutes=30)
PASSAGE = Passage(source_id="chat-1", source_version="v1", locator="chars:0-20")
QUESTION = "确认负责人是张三还是李四"
REVIEW = Review(run_id="sup-con-1-m3", result_id="res-review")  # the conversation's review


def recorded(draft) -> Signal:  # type: ignore[no-untyped-def]
    [signal] = new_signals([draft], scope="p1", run_id="run-1", result_id="res-1", now=MONDAY)
    return signal


def commitment() -> Signal:
    draft = from_fact("commitment", "李四：前端部分周四能提测", PASSAGE, MONDAY, TZ)
    assert draft is not None
    return recorded(draft)


def difference() -> Signal:
    return recorded(
        from_difference(
            target_kind="entity",
            target_id="ent-pay",
            field="负责人",
            confirmed_value="张三",
            proposed_value="李四",
            text="支付模块改由李四负责",
            passage=PASSAGE,
            said_at=MONDAY,
        )
    )


def concern(
    signal: Signal, *answers: str, status: ConcernStatus = ConcernStatus.RESOLVED, goal: str = ""
) -> Concern:
    person = ("p_lisi", "李四") if signal.kind is SignalKind.COMMITMENT else ("p_zs", "张三")
    return ended_concern(
        signal,
        *answers,
        answered_at=ANSWERED,
        status=status,
        person=person,
        asked=("你好，想确认一下：\n前端部分提测了吗？", THURSDAY),
        goal=goal or FOLLOW_UP,
    )


def decide(signal: Signal, c: Concern, **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("review", REVIEW)
    return decide_outcome(signal, c, now=ANSWERED + timedelta(hours=1), **kw)


@pytest.mark.parametrize(
    ("answer", "happened"),
    [
        (
            "已经提测了",
            ANSWERED + timedelta(minutes=1),
        ),  # the example's phrase (docs/rules/loop.md), when said
        ("前端昨天就提测了", datetime(2026, 3, 18, 18, 0, tzinfo=SH)),
        ("嗯，搞定了，已经提测", ANSWERED + timedelta(minutes=1)),
    ],
)
def test_a_kept_commitment_is_an_event_citing_the_answer_line(
    answer: str, happened: datetime
) -> None:
    signal = commitment()
    plan = decide(signal, concern(signal, "我看看", answer))
    assert plan is not None and plan.status is SignalStatus.KEPT
    [event] = plan.events
    assert event.title == "前端部分已提测" and event.at == happened
    # a machine's reading: by the review that read it, never stamped as the person's own act
    assert event.by == Actor.run(REVIEW.run_id) and event.by.kind is ActorKind.RUN
    assert event.via_concern == f"con-{signal.id}" and event.via_result == REVIEW.result_id
    [ref] = plan.references
    assert (ref.owner_id, ref.locator) == (event.id, "lines:3-3")  # the third message
    assert ref.source_id == f"concern-con-{signal.id}" and ref.source_version == "m3"
    assert ref.result_id == REVIEW.result_id
    c = concern(signal, "我看看", answer)
    _, version = conversation_source(c, "p1", at=ANSWERED, tz=TZ)
    assert (version.source_id, version.version) == (ref.source_id, ref.source_version)
    lines = (version.text or "").splitlines()
    assert lines[2] == f"[{ANSWERED + timedelta(minutes=1):%Y-%m-%dT%H:%M:%S+08:00}] 李四: {answer}"
    assert lines[0].endswith("跟进→李四: 你好，想确认一下： 前端部分提测了吗？")  # one line each
    assert plan.signal.status is SignalStatus.KEPT and plan.signal.seq == 2
    assert plan.signal.by == event.by and plan.signal.via_concern
    assert plan.drafts == [] and plan.suggestion is None


@pytest.mark.parametrize(
    ("answer", "due", "when"),
    [
        ("推迟到周五", datetime(2026, 3, 20, 18, 0, tzinfo=SH), "周五"),  # the example's moved date
        ("要改到下周一了", datetime(2026, 3, 23, 18, 0, tzinfo=SH), "下周一"),
        ("往后顺延到3月25日", datetime(2026, 3, 25, 18, 0, tzinfo=SH), "3月25日"),
    ],
)
def test_a_moved_commitment_moves_the_same_signals_due_citing_the_reply(
    answer: str, due: datetime, when: str
) -> None:
    signal = commitment()
    waiting = concern(signal, answer, status=ConcernStatus.WAITING_REPLY)  # the loop goes on
    plan = decide(signal, waiting)
    assert plan is not None and plan.status is SignalStatus.OPEN
    [event] = plan.events
    assert event.title == f"前端部分提测推迟到{when}" and event.at == ANSWERED
    assert event.by == Actor.run(REVIEW.run_id)
    assert plan.drafts == []  # no second signal, no second concern
    assert plan.signal.id == signal.id and plan.signal.due == due
    assert plan.signal.due_text == when and plan.signal.status is SignalStatus.OPEN
    [ref] = plan.references
    assert ref.locator == "lines:2-2" and ref.source_version == "m2"
    assert decide(plan.signal, waiting) is None  # moved once by this reading


@pytest.mark.parametrize("status", [ConcernStatus.DROPPED, ConcernStatus.ESCALATED])
def test_a_dropped_or_escalated_concern_leaves_the_signal_unresolved_asserting_nothing(
    status: ConcernStatus,
) -> None:
    signal = commitment()
    c = concern(signal, "已经提测了", status=status)
    plan = decide(signal, c)
    assert plan is not None and plan.status is SignalStatus.UNRESOLVED
    assert plan.events == [] and plan.references == [] and plan.result_id is None
    assert plan.signal.status is SignalStatus.UNRESOLVED and plan.signal.via_concern
    assert decide(plan.signal, c) is None  # written once
    assert not needs_review(c)  # nothing for a review to propose


@pytest.mark.parametrize("answer", ["嗯", "对", "快了，这两天"])
def test_a_resolved_concern_without_a_definite_answer_asserts_nothing(answer: str) -> None:
    signal = commitment()
    plan = decide(signal, concern(signal, answer))
    assert plan is not None and plan.status is SignalStatus.UNRESOLVED and plan.events == []


def test_an_outcome_is_written_once_and_only_for_its_own_signal() -> None:
    signal = commitment()
    c = concern(signal, "已经提测了")
    plan = decide(signal, c)
    assert plan is not None
    assert decide(plan.signal, c) is None  # a redelivered job: the signal is kept already
    other = difference()
    assert decide(other, c) is None
    open_concern = c.model_copy(update={"status": ConcernStatus.WAITING_REPLY})
    assert decide(signal, open_concern) is None


def pending() -> tuple[Suggestion, Entity]:
    target = Entity(
        id="ent-pay",
        scope="p1",
        seq=2,
        recorded_at=MONDAY,
        by=Actor.user("u1"),
        name="支付模块",
        description="张三",
        user_fields=["description"],
    )
    suggestion = Suggestion(
        id="sug-1",
        scope="p1",
        seq=1,
        recorded_at=MONDAY,
        by=Actor.run("run-1"),
        result_id="res-1",
        kind=SuggestionKind.DIFFERENCE,
        target_kind=ObjectKind.ENTITY,
        target_id="ent-pay",
        field="description",
        current_value="张三",
        proposed_value="李四",
    )
    return suggestion, target


@pytest.mark.parametrize(
    "answer",
    [
        "对，已经交给李四了",
        "是李四，上周交接的",
        "现在李四在负责",
        "不对，还是张三负责",
        "张三",
        "没换，张三在管",
    ],
)
def test_a_difference_answer_is_quoted_evidence_on_the_pending_difference_never_a_verdict(
    answer: str,
) -> None:
    signal = difference()
    suggestion, target = pending()
    plan = decide(
        signal, concern(signal, answer, goal=QUESTION), suggestion=suggestion, target=target
    )
    assert plan is not None and plan.status is SignalStatus.SETTLED
    # the inbox item still waits for an editor; nothing is written to the person-edited target
    assert plan.suggestion is not None and plan.suggestion.status is SuggestionStatus.PENDING
    assert plan.suggestion.seq == suggestion.seq + 1
    assert plan.suggestion.proposed_value == "李四" and plan.suggestion.current_value == "张三"
    assert plan.suggestion.why == f"张三 在跟进中答复：{answer}"
    assert plan.suggestion.via_concern == f"con-{signal.id}"
    reader = Actor.run(REVIEW.run_id)
    assert plan.suggestion.by == reader and plan.signal.by == reader
    assert plan.suggestion.via_result == REVIEW.result_id
    # the quoted evidence: the answer's line in the concern conversation
    assert [(r.owner_id, r.locator) for r in plan.references] == [("sug-1", "lines:2-2")]
    assert plan.events == []


@pytest.mark.parametrize("answer", ["对", "嗯", "张三和李四都在"])
def test_an_unclear_difference_answer_settles_nothing(answer: str) -> None:
    signal = difference()
    suggestion, target = pending()
    plan = decide(
        signal, concern(signal, answer, goal=QUESTION), suggestion=suggestion, target=target
    )
    assert plan is not None and plan.status is SignalStatus.UNRESOLVED
    assert plan.suggestion is None


def test_a_difference_settled_elsewhere_is_not_overwritten() -> None:
    signal = difference()
    plan = decide(signal, concern(signal, "对，已经交给李四了", goal=QUESTION))
    assert plan is not None and plan.status is SignalStatus.UNRESOLVED


@pytest.mark.parametrize(
    ("answer", "status"),
    [("已经提测了", ConcernStatus.RESOLVED), ("推迟到周五", ConcernStatus.WAITING_REPLY)],
)
def test_without_a_review_the_loop_writes_no_answer(answer: str, status: ConcernStatus) -> None:
    """Only the review of the concern's conversation proposes what a reply states."""
    signal = commitment()
    c = concern(signal, answer, status=status)
    assert needs_review(c)
    assert decide(signal, c, review=None) is None


def test_conversation_lines_carry_speaker_and_time() -> None:
    signal = commitment()
    lines = conversation_lines(concern(signal, "已经提测了"), TZ, "en")
    assert lines[1] == "[2026-03-19T18:30:00+08:00] 李四: 已经提测了"
    assert lines[0].startswith("[2026-03-19T18:00:00+08:00] follow-up→李四: ")


def test_the_conversation_binds_who_wrote_in_it_and_not_the_loop() -> None:
    c = concern(commitment(), "嗯", "已经提测了")
    log = [e.model_copy(update={"channel": "telegram"}) for e in c.conversation_log]
    [lisi] = conversation_speakers(c.model_copy(update={"conversation_log": log}))
    assert (lisi.name, lisi.person_id, lisi.channel) == ("李四", "p_lisi", "telegram")
    # a name two people wrote under is bound to neither
    other = log[-1].model_copy(update={"person_id": "p_other"})
    assert conversation_speakers(c.model_copy(update={"conversation_log": [*log, other]})) == []


def test_an_app_source_may_not_take_the_concern_prefix() -> None:
    source = {"scope": "p1", "kind": "note", "version": "v1", "text": "hi"}
    with pytest.raises(InvalidInput) as err:
        parse_input(SourceInput, {**source, "id": "concern-c1"})
    [problem] = err.value.details["errors"]
    assert problem["loc"] == "id" and "'concern-'" in problem["msg"]
    assert parse_input(SourceInput, {**source, "id": "c1"}).id == "c1"


def judged(goal: str, answer: str) -> bool:
    log = [
        LogEntry(person_id="p", person_name="李四", direction="outbound", text="?", ts=THURSDAY),
        LogEntry(person_id="p", person_name="李四", direction="inbound", text=answer, ts=ANSWERED),
    ]
    ctx = LoopContext(
        goal=goal,
        now=ANSWERED,
        counterparts=[Person(person_id="p", display_name="李四")],
        initiator=Person(person_id="p_owner", display_name="老板"),
        conversation_log=log,
        replied_by="p",
    )
    return judge_loop(ctx).goal_met


@pytest.mark.parametrize("answer", ["已经提测了", "昨天就提测了", "done, it's in QA"])
def test_the_offline_loop_resolves_a_follow_up_on_a_definite_answer(answer: str) -> None:
    assert judged(FOLLOW_UP, answer)


def test_the_offline_loop_waits_in_the_same_concern_until_a_moved_promise() -> None:
    log = [
        LogEntry(person_id="p", person_name="李四", direction="outbound", text="?", ts=THURSDAY),
        LogEntry(
            person_id="p", person_name="李四", direction="inbound", text="推迟到周五了", ts=ANSWERED
        ),
    ]
    ctx = LoopContext(
        goal=FOLLOW_UP,
        now=ANSWERED,
        counterparts=[Person(person_id="p", display_name="李四")],
        initiator=Person(person_id="p_owner", display_name="老板"),
        conversation_log=log,
        replied_by="p",
    )
    out = judge_loop(ctx)
    friday = datetime(2026, 3, 20, 18, 0, tzinfo=SH)
    assert not out.goal_met and out.step.value == "wait"
    assert out.next_action is not None and out.next_action.when == friday
    assert out.reading is not None and out.reading.outcome.value == "moved"
    assert out.reading.new_due == friday and out.reading.line == 2


@pytest.mark.parametrize(
    "answer", ["嗯", "对", "好的", "我看看", "快了", "提测了吗？", "推迟到周五"]
)
def test_the_offline_loop_asks_a_follow_up_again_on_a_vague_answer(answer: str) -> None:
    assert not judged(FOLLOW_UP, answer)


@pytest.mark.parametrize("answer", ["对，已经交给李四了", "不对，还是张三负责", "是李四"])
def test_the_offline_loop_resolves_a_question_on_one_chosen_value(answer: str) -> None:
    assert judged(QUESTION, answer)


@pytest.mark.parametrize("answer", ["对", "嗯", "好", "张三和李四"])
def test_the_offline_loop_asks_a_question_again_on_a_bare_yes_or_both_names(answer: str) -> None:
    assert not judged(QUESTION, answer)


def test_a_plain_confirmation_goal_still_resolves_on_yes() -> None:
    assert judged(
        "确认周五的会议", "好"
    )  # docs/rules/concerns.md: goal 要求"确认"，对方说"好" → 达成


def test_a_latin_value_beside_chinese_is_named() -> None:
    assert read_difference_answer("不对，还是Alice负责", "Alice", "Bob") is DifferenceAnswer.CURRENT
    assert read_difference_answer("已经交给Bob了", "Alice", "Bob") is DifferenceAnswer.PROPOSED
    assert read_difference_answer("Bobby 在做", "Alice", "Bob") is DifferenceAnswer.UNCLEAR


def test_a_difference_settles_the_suggestion_it_stands_for() -> None:
    signal = difference()  # 负责人: 张三 -> 李四 on ent-pay
    suggestion, _ = pending()
    mine = suggestion.model_copy(update={"field": "负责人"})
    other = mine.model_copy(update={"id": "sug-2", "proposed_value": "王五"})
    assert suggestion_for(signal, [other, mine]) is mine
    assert suggestion_for(signal, [other]) is None
