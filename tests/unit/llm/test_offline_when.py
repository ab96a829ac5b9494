"""Promised times (engine/language/when.py), relative to the message time and zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.language.when import Precision, cn_number, parse_when

SH = ZoneInfo("Asia/Shanghai")
TUE_10 = datetime(2026, 3, 17, 10, 0)  # a Tuesday, naive = local Shanghai time


def at(text: str, ts: datetime = TUE_10, tz: str = "Asia/Shanghai") -> datetime | None:
    found = parse_when(text, ts, tz)
    return found.at if found else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("好的，明天给你", datetime(2026, 3, 18, 18, 0)),
        ("后天", datetime(2026, 3, 19, 18, 0)),
        ("大后天吧", datetime(2026, 3, 20, 18, 0)),
        ("周五", datetime(2026, 3, 20, 18, 0)),
        ("星期天", datetime(2026, 3, 22, 18, 0)),
        ("下周一上午", datetime(2026, 3, 23, 12, 0)),
        ("下午两点", datetime(2026, 3, 17, 14, 0)),
        ("两点给你", datetime(2026, 3, 17, 14, 0)),
        ("明天下午3点", datetime(2026, 3, 18, 15, 0)),
        ("晚上8点半", datetime(2026, 3, 17, 20, 30)),
        ("10点一刻", datetime(2026, 3, 17, 10, 15)),
        ("15:00 前", datetime(2026, 3, 17, 15, 0)),
        ("3月20号", datetime(2026, 3, 20, 18, 0)),
        ("25号", datetime(2026, 3, 25, 18, 0)),
        ("2小时后", datetime(2026, 3, 17, 12, 0)),
        ("半小时后", datetime(2026, 3, 17, 10, 30)),
        ("tomorrow 3pm", datetime(2026, 3, 18, 15, 0)),
        ("Friday", datetime(2026, 3, 20, 18, 0)),
        ("by Friday", datetime(2026, 3, 20, 18, 0)),
        ("next Friday", datetime(2026, 3, 27, 18, 0)),
        ("in 2 hours", datetime(2026, 3, 17, 12, 0)),
        ("tomorrow morning", datetime(2026, 3, 18, 12, 0)),
        ("I'll have it on Monday at 10:30am", datetime(2026, 3, 23, 10, 30)),
        ("tonight", datetime(2026, 3, 17, 22, 0)),
        ("三天后给你", datetime(2026, 3, 20, 18, 0)),
        ("in 3 days", datetime(2026, 3, 20, 18, 0)),
    ],
)
def test_promised_times_resolve_against_the_message_time(text: str, expected: datetime) -> None:
    assert at(text) == expected.replace(tzinfo=SH)


def test_a_clock_time_already_past_today_means_tomorrow() -> None:
    assert at("下午两点", datetime(2026, 3, 17, 15, 0)) == datetime(2026, 3, 18, 14, 0, tzinfo=SH)


def test_aware_timestamps_are_converted_into_the_given_zone() -> None:
    # 2026-03-17 23:30 UTC is already the 18th in Shanghai: 明天 is the 19th there.
    ts = datetime(2026, 3, 17, 23, 30, tzinfo=UTC)
    assert at("明天", ts) == datetime(2026, 3, 19, 18, 0, tzinfo=SH)
    assert at("明天", ts, "Europe/London") == datetime(
        2026, 3, 18, 18, 0, tzinfo=ZoneInfo("Europe/London")
    )


@pytest.mark.parametrize(
    "text", ["大概这两天", "过几天吧", "尽快", "晚一点给你", "soon", "in a few days", "回头给你"]
)
def test_vague_phrases_have_no_time(text: str) -> None:
    found = parse_when(text, TUE_10, "Asia/Shanghai")
    assert found is not None and found.precision is Precision.VAGUE
    assert found.at is None and not found.specific


@pytest.mark.parametrize("text", ["下周", "周末", "月底", "next week"])
def test_ranges_are_not_specific(text: str) -> None:
    found = parse_when(text, TUE_10, "Asia/Shanghai")
    assert found is not None and found.precision is Precision.RANGE and not found.specific


@pytest.mark.parametrize("text", ["我看看", "好的", "快一点", "monitor the build", "wedding"])
def test_no_time_phrase_means_none(text: str) -> None:
    assert parse_when(text, TUE_10, "Asia/Shanghai") is None


def test_hedged_specific_day_stays_specific() -> None:
    found = parse_when("大概明天吧", TUE_10, "Asia/Shanghai")
    assert found is not None and found.specific and found.hedged


def test_chinese_numerals() -> None:
    assert [cn_number(s) for s in ["两", "十", "十五", "二十三", "三十", "7"]] == [
        2,
        10,
        15,
        23,
        30,
        7,
    ]


@given(st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31)))
def test_tomorrow_and_weekdays_are_always_ahead(ts: datetime) -> None:
    tomorrow = at("明天", ts)
    assert tomorrow is not None and tomorrow.date() == ts.date() + timedelta(days=1)
    friday = at("周五", ts)
    assert friday is not None and friday.weekday() == 4
    assert 0 <= (friday.date() - ts.date()).days <= 6
    next_friday = at("下周五", ts)
    assert next_friday is not None and next_friday.weekday() == 4
    assert next_friday.date() > ts.date()
