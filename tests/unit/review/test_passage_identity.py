"""A passage is named by what a reader sees (source, speaker, time, words, occurrence),
never by its offsets or version: the same line in v1 and v2 is one passage, the same words
said again are another, and compose/signals carry that identity."""

from __future__ import annotations

import json

from engine.review.compose import compose_result
from engine.review.manifest import BatchState, LeafBatch
from engine.review.outputs import parse_leaf_output, parse_navigation_output
from engine.review.passage import fact_passages, passage_key
from engine.review.types import Scope, Segment
from engine.signal.model import Passage, SignalDraft, SignalKind

V1 = "老板: 张三负责支付模块\n李四: 前端部分周四能提测\n"
V2 = "王五: 早\n" + V1 + "王五: 好的，收到\n李四: 前端部分周四能提测\n"


def key(text: str, words: str, nth: int = 0) -> str | None:
    start = -1
    for _ in range(nth + 1):
        start = text.index(words, start + 1)
    return passage_key("chat", text, start, start + len(words))


def test_the_same_line_in_another_version_at_another_offset_is_the_same_passage() -> None:
    assert key(V1, "前端部分周四能提测") == key(V2, "前端部分周四能提测")
    assert key(V1, "张三负责支付模块") == key(V2, "张三负责支付模块")


def test_words_said_again_or_by_someone_else_or_elsewhere_are_another_passage() -> None:
    assert key(V2, "前端部分周四能提测", 1) != key(V2, "前端部分周四能提测", 0)
    assert key("王五: 前端部分周四能提测\n", "前端部分周四能提测") != key(V1, "前端部分周四能提测")
    stamped = "[2026-09-21T10:00:00Z] 李四: 前端部分周四能提测\n"
    later = "[2026-09-21T11:00:00Z] 李四: 前端部分周四能提测\n"
    assert key(stamped, "前端部分周四能提测") != key(later, "前端部分周四能提测")
    assert passage_key("other", V1, 0, 5) != passage_key("chat", V1, 0, 5)


def _batch(index: int, version: str, text: str, words: list[str]) -> tuple[LeafBatch, object]:
    seg = Segment(source_id="chat", version=version, start=0, end=len(text))
    facts = []
    for w in words:
        at = text.index(w)
        ref = {"source_id": "chat", "version": version, "start": at, "end": at + len(w)}
        facts.append({"text": f"李四：{w}", "refs": [ref], "kind": "commitment"})
    out = parse_leaf_output(json.dumps({"facts": facts}, ensure_ascii=False))
    return LeafBatch(index=index, segments=(seg,), state=BatchState.COMMITTED), out


def test_compose_gives_each_event_its_passage_and_one_event_per_passage() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 9, 21, tzinfo=UTC)
    leaves = [
        _batch(0, "v1", V1, ["前端部分周四能提测"]),
        _batch(1, "v1", V1, ["前端部分周四能提测"]),
    ]
    passages = fact_passages(leaves, {("chat", "v1"): V1})  # type: ignore[arg-type]
    assert passages[(0, 0)] == passages[(1, 0)] == key(V1, "前端部分周四能提测")
    data = compose_result(
        run_id="r1",
        scope=Scope.projects("p1"),
        leaves=leaves,  # type: ignore[arg-type]
        root=parse_navigation_output('{"summary": "s"}'),
        segment_times={},
        now=now,
        passages=passages,
    )
    [event] = data["events"]
    assert event["passage"] == passages[(0, 0)] and event["title"] == "前端部分周四能提测"


def test_a_signal_with_a_passage_is_the_same_signal_in_every_version() -> None:
    def draft(version: str, locator: str, key: str) -> SignalDraft:
        p = Passage(source_id="chat", source_version=version, locator=locator, key=key)
        return SignalDraft(kind=SignalKind.COMMITMENT, text="李四：提测", passage=p)

    assert draft("v1", "chars:1-5", "k").fingerprint == draft("v2", "chars:9-13", "k").fingerprint
    assert draft("v1", "chars:1-5", "k").fingerprint != draft("v1", "chars:1-5", "j").fingerprint
    # without a passage identity a signal is its version and locator, as before
    assert draft("v1", "chars:1-5", "").fingerprint != draft("v2", "chars:1-5", "").fingerprint
