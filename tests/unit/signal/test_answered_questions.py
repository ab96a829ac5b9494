"""Which open questions the lines a review reads answer (docs/rules/reviews.md): the person
asked (named, or the one other speaker) speaking after the question, in the lines read."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.review.types import Segment
from engine.signal.answered import answered_questions
from engine.signal.derive import from_fact
from engine.signal.model import Passage, SignalStatus
from engine.signal.stored import Signal, new_signals

NOW = datetime(2026, 11, 30, 3, 0, tzinfo=UTC)
ASK = "[2026-11-30T10:00:00+08:00] 张三: 李四，能不能把测试报告发我一下？\n"


def question(text: str = "张三：李四，能不能把测试报告发我一下？") -> Signal:
    passage = Passage(source_id="chat", source_version="v1", locator=f"chars:0-{len(ASK)}")
    draft = from_fact("question", text, passage, NOW, "Asia/Shanghai")
    assert draft is not None
    return new_signals([draft], scope="p1", run_id="r1", result_id="res-1", now=NOW)[0]


def answered(signal: Signal, text: str, start: int = 0) -> list[Signal]:
    read = [Segment(source_id="chat", version="v2", start=start, end=len(text))]
    return answered_questions(
        [signal], {("chat", "v2"): text}, read, run_id="r2", result_id="res-2", now=NOW
    )


def test_the_person_named_answering_after_it_answers_the_question() -> None:
    reply = "[2026-11-30T10:05:00+08:00] 李四: 刚发你邮箱了\n"
    [v] = answered(question(), ASK + reply, start=len(ASK))
    assert v.status is SignalStatus.ANSWERED and v.seq == 2 and v.by.id == "r2"
    assert (v.source_version, v.locator) == ("v2", f"chars:{len(ASK)}-{len(ASK + reply) - 1}")
    assert "刚发你邮箱了" in v.why and v.via_result == "res-2"


def test_the_asker_or_someone_else_speaking_is_no_answer() -> None:
    again = "[2026-11-30T10:06:00+08:00] 张三: 在吗\n"
    other = "[2026-11-30T10:07:00+08:00] 王五: 我也想要\n"
    assert answered(question(), ASK + again + other) == []


def test_a_question_naming_nobody_asks_the_one_other_speaker_only() -> None:
    ask = "[2026-11-30T10:00:00+08:00] 张三: 能不能把测试报告发我一下？\n"
    signal = question("张三：能不能把测试报告发我一下？")
    one = "[2026-11-30T10:05:00+08:00] 李四: 发了\n"
    assert len(answered(signal, ask + one)) == 1
    two = one + "[2026-11-30T10:06:00+08:00] 王五: 我没有\n"
    assert answered(signal, ask + two) == []  # who was asked: the rule cannot tell


def test_an_answer_outside_the_lines_read_answers_nothing() -> None:
    reply = "[2026-11-30T10:05:00+08:00] 李四: 刚发你邮箱了\n"
    text = ASK + reply
    read = [Segment(source_id="chat", version="v2", start=0, end=len(ASK))]
    got = answered_questions(
        [question()], {("chat", "v2"): text}, read, run_id="r2", result_id="res-2", now=NOW
    )
    assert got == []
