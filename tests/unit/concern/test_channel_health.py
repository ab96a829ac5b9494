from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from engine.concern.backflow import choose_channel
from engine.concern.channel_health import (
    THRESHOLD,
    WINDOW,
    ChannelHealth,
    after_failure,
    after_success,
    unreachable,
)

T0 = datetime(2035, 3, 19, 2, 0, tzinfo=UTC)


def failed(times: int, at: datetime = T0) -> ChannelHealth:
    h = ChannelHealth("feishu")
    for _ in range(times):
        h = after_failure(h, at, "503")
    return h


def test_three_consecutive_failures_make_a_channel_unreachable_and_backflow_falls_back() -> None:
    assert unreachable([failed(2)], T0) == frozenset()
    down = unreachable([failed(3)], T0)
    assert down == {"feishu"}
    assert choose_channel("telegram", "feishu", down) == "telegram"
    assert choose_channel("telegram", "feishu", unreachable([failed(2)], T0)) == "feishu"


def test_one_success_makes_it_reachable_again() -> None:
    assert unreachable([after_success(failed(5))], T0) == frozenset()


def test_failures_expire_after_the_window() -> None:
    assert unreachable([failed(3)], T0 + WINDOW - timedelta(seconds=1)) == {"feishu"}
    assert unreachable([failed(3)], T0 + WINDOW) == frozenset()


@given(st.lists(st.booleans(), max_size=30))
def test_unreachable_exactly_when_the_last_run_of_failures_reaches_the_threshold(
    outcomes: list[bool],
) -> None:
    h = ChannelHealth("feishu")
    for ok in outcomes:
        h = after_success(h) if ok else after_failure(h, T0, "x")
    trailing = len(outcomes) - (max((i for i, ok in enumerate(outcomes) if ok), default=-1) + 1)
    assert (h.channel in unreachable([h], T0)) == (trailing >= THRESHOLD)
