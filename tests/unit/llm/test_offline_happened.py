"""The offline rules for what happened (engine/offline/happened.py, docs/rules/precision.md):
a past-tense statement of something done is an event; a wish, a plan, a guess, a habit or a
remark is not; "一点" is "a little" unless a day or part of the day stands before it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.language.when import parse_when
from engine.llm.tasks import ReviewDocument
from engine.offline.extractor import extract
from engine.offline.happened import happened
from engine.signal.responsibility import find_responsibility

SAID = datetime(2026, 11, 2, 11, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "sentence",
    [
        "I found a lost wallet in the park today!",
        "Yesterday, the teacher praised me in class",
        "My mom picked it out, and I really like this color!",
        "Last time I hid behind a tree, it took them forever to find me.",
        "我记得你之前参加过一个科学展览，你是不是很感兴趣呀！",
        "上次我藏在一个树后面，他们花了好久才找到我。",
        "你知道吗，我今天发现了一个超级好吃的披萨店！",
    ],
)
def test_a_past_statement_of_something_done_happened(sentence: str) -> None:
    assert happened(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I want to go again!",
        "Awesome, I wanted to try the strawberry flavor!",
        "Your active participation must have made a great impression on everyone.",
        "Yeah, we also compete to see who can run the fastest, and sometimes I win!",
        "I'm really looking forward to that evening; I want to make it very special!",
        "That was fantastic!",
        "I thought all leet kiddies knew how to use command line ftp clients",
        "你一定努力复习了很多吧？",
        "真是太好了！",
        "我有时候赢了呢！",
        "这阵容也太强大了，我最喜欢尼古拉斯·凯奇这个演员了。",
    ],
)
def test_a_wish_a_guess_a_habit_or_a_remark_did_not_happen(sentence: str) -> None:
    assert not happened(sentence)


def test_a_remark_naming_today_is_no_event_and_a_past_statement_is() -> None:
    text = (
        "[2026-11-02T11:00:00+00:00] Assistant: Those flowers, just like your outfit today, "
        "are such joyful symbols.\n"
        "[2026-11-02T11:01:00+00:00] Bart: I got a lot of flowers on my birthday!\n"
        "[2026-11-02T11:02:00+00:00] Bart: 我今天发现了一个超级好吃的披萨店！\n"
    )
    got = extract(ReviewDocument(source_id="s", text=text, ts=SAID, timezone="UTC"))
    assert [(f.text, f.kind) for f in got.facts] == [
        ("Bart：I got a lot of flowers on my birthday!", "statement"),
        ("Bart：我今天发现了一个超级好吃的披萨店！", "statement"),  # 发现 delivers nothing
    ]


def test_a_plan_naming_its_time_is_a_commitment() -> None:
    text = "[2026-11-02T11:00:00+00:00] Bart: We'll go to the ice cream shop on Saturday.\n"
    got = extract(ReviewDocument(source_id="s", text=text, ts=SAID, timezone="UTC"))
    assert [f.kind for f in got.facts] == ["commitment"]


def test_a_little_is_not_one_oclock() -> None:
    assert parse_when("偶尔喝一点是可以的", SAID, "Asia/Shanghai") is None
    assert parse_when("一时想不起来", SAID, "Asia/Shanghai") is None
    one = parse_when("明天一点提测", SAID, "Asia/Shanghai")
    assert one is not None and one.at.hour == 13
    half = parse_when("下午一点半给你", SAID, "Asia/Shanghai")
    assert half is not None and (half.at.hour, half.at.minute) == (13, 30)


def test_responsible_as_an_adjective_or_a_description_names_no_holder() -> None:
    assert find_responsibility("这样做很安全也很负责任。") == []
    assert find_responsibility("或者可以交给附近的警察叔叔帮忙哦。") == []
    [claim] = find_responsibility("支付模块交给李四了")
    assert (claim.person, claim.target) == ("李四", "支付模块")


def test_a_plan_for_a_fixed_holiday_is_a_commitment_due_that_day() -> None:
    text = (
        "[2026-11-02T11:00:00+00:00] Bart: I'm going to perform a magic trick at the "
        "New Year's Eve party!\n"
        "[2026-11-02T11:01:00+00:00] Bart: 元旦晚会我要表演魔术！\n"
    )
    got = extract(ReviewDocument(source_id="s", text=text, ts=SAID, timezone="UTC"))
    assert [f.kind for f in got.facts] == ["commitment", "commitment"]
    assert all(f.at == SAID or f.at is None or f.at <= SAID.replace(minute=1) for f in got.facts)
    eve = parse_when("at the New Year's Eve party", SAID, "UTC")
    assert eve is not None and (eve.at.month, eve.at.day) == (12, 31)
