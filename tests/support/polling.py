"""Waiting in tests: poll a condition until it holds or a deadline passes, never a fixed
sleep. `until` for plain code, `until_async` inside async tests; both return the value that
satisfied the condition and fail with `what` and the last value seen. `reached_async` is
for an audit that records a deadline passed instead of failing at once (the chaos test)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")
POLL = 0.2  # seconds between two reads of the condition


def until(
    read: Callable[[], T],
    ok: Callable[[T], Any] = bool,
    what: str = "condition",
    timeout: float = 60,
    every: float = POLL,
) -> T:
    """`every`: seconds between two reads (shorter for a local server starting up)."""
    deadline = time.monotonic() + timeout
    got = read()
    while not ok(got):
        assert time.monotonic() < deadline, f"{what} not reached in {timeout:g} s: {got!r}"
        time.sleep(every)
        got = read()
    return got


async def until_async(
    read: Callable[[], Awaitable[T]],
    ok: Callable[[T], Any] = bool,
    what: str = "condition",
    within: float = 60,
) -> T:
    deadline = time.monotonic() + within
    got = await read()
    while not ok(got):
        assert time.monotonic() < deadline, f"{what} not reached in {within:g} s: {got!r}"
        await asyncio.sleep(POLL)
        got = await read()
    return got


async def reached_async(
    read: Callable[[], Awaitable[T]],
    ok: Callable[[T], Any] = bool,
    within: float = 60,
    every: float = POLL,
) -> bool:
    """Whether `ok(await read())` came true before `within` seconds passed."""
    deadline = time.monotonic() + within
    while not ok(await read()):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(every)
    return True
