"""A question is a signal only when it stays unanswered in the conversation
(docs/rules/reviews.md, What a review may write): an answer later in the source counts even
when it lies beyond the batch being read (a later batch of the review, or lines a later
version added after the question)."""

from __future__ import annotations

import json
from datetime import datetime

from engine.review.types import Segment
from engine.settings import Settings
from jobs.llm.gateway import build_gateway
from jobs.review.model import leaf_answer

ASK = "[2026-11-30T10:00:00+08:00] 张三: 李四，能不能把测试报告发我一下？\n"
REPLY = "[2026-11-30T10:05:00+08:00] 李四: 刚发你邮箱了\n"


async def _questions(text: str) -> list[str]:
    """The question facts of a leaf over the first message only (the batch), with `text`
    the whole source version."""
    gateway = build_gateway(Settings(model_base_url=None))
    first = Segment(source_id="chat", version="v2", start=0, end=len(ASK))
    raw = await leaf_answer(
        gateway,
        [first],
        {("chat", "v2"): text},
        times={("chat", "v2", 0): datetime.fromisoformat("2026-11-30T10:00:00+08:00")},
    )
    return [f["text"] for f in json.loads(raw)["facts"] if f["kind"] == "question"]


async def test_a_question_answered_beyond_the_batch_is_no_signal() -> None:
    assert await _questions(ASK + REPLY) == []


async def test_a_question_nobody_answered_stays_a_signal() -> None:
    assert await _questions(ASK) == ["张三：李四，能不能把测试报告发我一下？"]
    # the asker speaking again is no answer
    again = "[2026-11-30T10:06:00+08:00] 张三: 在吗\n"
    assert await _questions(ASK + again) == ["张三：李四，能不能把测试报告发我一下？"]
