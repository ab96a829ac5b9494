"""The offline model finds commitments with their due times and blockers, in Chinese and
English: each rule holds with the worked example's phrase (李四说
"前端部分周四能提测", docs/rules/loop.md; 张三 "卡在第三方回调接口", docs/demo.md) and more phrasings, read the way a review reads
them — the extractor classifies the message's sentence, the signal resolves its due time
against the message's time in the scope's zone. The real model's leaf prompt asks for the
same structure."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from engine.llm.tasks import ReviewDocument
from engine.offline.extractor import extract
from engine.signal.derive import from_fact
from engine.signal.model import Passage, SignalDraft, SignalKind
from jobs.review.model import LEAF_SYSTEM

TZ = "Asia/Shanghai"
SH = ZoneInfo(TZ)
MONDAY = datetime(2026, 3, 2, 10, 0, tzinfo=SH)  # Monday 2 March 2026
PASSAGE = Passage(source_id="chat", source_version="v1", locator="chars:0-1")


def found(said: str, who: str = "李四") -> tuple[str, SignalDraft | None]:
    """(fact kind, signal) of one message as the offline model reviews it."""
    text = f"[{MONDAY.isoformat()}] {who}: {said}\n"
    [fact] = extract(ReviewDocument(source_id="chat", text=text, ts=MONDAY, timezone=TZ)).facts
    return fact.kind, from_fact(fact.kind, fact.text, PASSAGE, MONDAY, TZ)


def at(day: int, month: int = 3, hour: int = 18) -> datetime:
    return datetime(2026, month, day, hour, 0, tzinfo=SH)


@pytest.mark.parametrize(
    ("said", "due"),
    [
        ("前端部分周四能提测", at(5)),  # the worked example's phrase
        ("接口文档明天发给你", at(3)),
        ("下周一上线灰度版本", at(9)),
        ("3月5日前交付安装包", at(5)),
        ("下午3点发周报给你", at(2, hour=15)),
        ("I will send the API doc by Thursday", at(5)),
        ("We can ship the beta tomorrow", at(3)),
        ("I'll deliver the build on Friday", at(6)),
    ],
)
def test_a_commitment_is_found_with_its_due_time(said: str, due: datetime) -> None:
    kind, signal = found(said)
    assert kind == "commitment"
    assert signal is not None and signal.kind is SignalKind.COMMITMENT
    assert signal.who == "李四" and signal.due == due


@pytest.mark.parametrize(
    ("said", "blocks"),
    [
        ("后端支付模块卡在第三方回调接口", "后端支付模块"),  # the demo's phrase
        ("支付联调被沙箱环境阻塞", "支付联调"),
        ("灰度发布卡住了", ""),
        ("The release is blocked by the payment API", "The release"),
        ("Login is stuck on the SSO redirect", "Login"),
    ],
)
def test_a_blocker_is_found_with_what_it_blocks(said: str, blocks: str) -> None:
    kind, signal = found(said, who="张三")
    assert kind == "blocker"
    assert signal is not None and signal.kind is SignalKind.BLOCKER
    assert signal.who == "张三" and signal.blocks == blocks


@pytest.mark.parametrize("said", ["前端部分这两天能提测", "I'll get it done soon"])
def test_a_promise_without_a_day_is_no_dated_commitment(said: str) -> None:
    _, signal = found(said)
    assert signal is None or signal.due is None


def test_the_real_models_prompt_asks_for_the_same_structure() -> None:
    for asked in (
        '"kind"',
        "commitment",
        "blocker",
        "risk",
        "question",
        "周四",
        "3月5日",
        "by Thursday",
        "responsible_for",
        "known_people",
    ):
        assert asked in LEAF_SYSTEM, asked
