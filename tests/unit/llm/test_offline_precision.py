"""The offline rules state only what they can ground: persons from speakers, known people,
@mentions and responsibility sentences, never a capitalised word; no fact from greetings,
thanks, acknowledgements or small-talk questions; a question only when it asks someone for
something; a promise happened when it was said, a past event when it happened."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engine.llm.tasks import ReviewDocument
from engine.offline.extractor import extract

SH = ZoneInfo("Asia/Shanghai")
MONDAY = datetime(2026, 9, 21, 10, 0, tzinfo=SH)


def review(text: str) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    out = extract(ReviewDocument(source_id="s", text=text, ts=MONDAY, timezone="Asia/Shanghai"))
    return [(f.kind, f.text) for f in out.facts], {(e.name, e.kind) for e in out.entities}


@pytest.mark.parametrize(
    "said",
    [
        "好的，收到",
        "收到",
        "OK",
        "Thanks!",
        "Thanks Mel!",
        "Thank you so much for the tip",
        "Hey Melanie!",
        "Wow, that's great!",
        "How's it going?",
        "Hey Caroline, how are you?",
        "最近怎么样？",
        "Sounds good!",
        "Glad to hear that",
    ],
)
def test_chatter_is_no_fact(said: str) -> None:
    facts, _ = review(f"Caroline: {said}\n")
    assert facts == []


def test_a_capitalised_word_is_no_person_a_speaker_and_an_at_mention_are() -> None:
    _, entities = review(
        "Caroline: Time flies. Anything new with Wow Corp? @Melanie can you send the photos?\n"
    )
    people = {name for name, kind in entities if kind == "person"}
    assert people == {"Caroline", "Melanie"}


def test_only_a_question_that_asks_for_something_is_a_question() -> None:
    facts, _ = review("张三: 你最近忙什么呢？\n张三: 能不能明天把接口文档发我？\n")
    assert facts == [("question", "张三：能不能明天把接口文档发我？")]


def test_a_plain_remark_is_no_event_a_remark_with_a_time_is() -> None:
    facts, _ = review(
        "Melanie: Family moments make life awesome.\n"
        "Caroline: I went to a support group yesterday.\n"
    )
    assert [t for _, t in facts] == ["Caroline：I went to a support group yesterday."]


def test_a_promise_is_when_it_was_said_and_a_past_event_when_it_happened() -> None:
    out = extract(
        ReviewDocument(
            source_id="s",
            text=f"[{MONDAY.isoformat()}] 李四: 前端部分周四能提测\n"
            f"[{MONDAY.isoformat()}] 张三: 昨天已经完成了支付联调\n",
            ts=MONDAY,
            timezone="Asia/Shanghai",
        )
    )
    promise, done = out.facts
    assert promise.kind == "commitment" and promise.at == MONDAY
    assert done.kind == "done" and done.at is not None
    assert done.at.astimezone(SH).date() == (MONDAY - timedelta(days=1)).date()


def test_a_question_is_answered_when_someone_it_asks_speaks_after_it() -> None:
    from engine.offline.chatter import is_answered

    people = ["bob2", "floo", "tapia"]
    asked = "floo: can you ping the nameserver?"
    assert is_answered("bob2", asked, ["tapia", "floo"], people)
    assert not is_answered("bob2", asked, ["tapia", "bob2"], people)  # floo never spoke
    assert is_answered("bob2", "can anyone ping it?", ["tapia"], people)  # nobody named
    assert not is_answered("bob2", "can anyone ping it?", [], people)


def test_naming_a_known_person_grounds_no_remark_naming_a_known_thing_does() -> None:
    doc = ReviewDocument(
        source_id="s",
        text="Dalkus: microhaxo, you'll get used to it in no time :)\n"
        "Dalkus: the payment module looks fine to me\n",
        ts=MONDAY,
        known_entities=["microhaxo", "payment module"],
        people=["microhaxo"],
    )
    assert [f.text for f in extract(doc).facts] == ["Dalkus：the payment module looks fine to me"]
