"""Channel health: which channels count as unreachable (docs/rules/concerns.md).

Back-flow prefers the initiator's preferred channel "如果偏好渠道不可达，降级到发起渠道",
and silence may make the loop "换渠道". Both need to know what is unreachable. A channel is
unreachable for a scope after `threshold` consecutive failed deliveries, the last one within
`window`; one successful delivery makes it reachable again. Older failures expire, so a
channel is tried again after the window even without a success.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

THRESHOLD = 3
WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class ChannelHealth:
    channel: str
    consecutive_failures: int = 0
    last_failure_at: datetime | None = None
    last_error: str = ""


def after_failure(health: ChannelHealth, now: datetime, error: str) -> ChannelHealth:
    return replace(
        health,
        consecutive_failures=health.consecutive_failures + 1,
        last_failure_at=now,
        last_error=error[:300],
    )


def after_success(health: ChannelHealth) -> ChannelHealth:
    return replace(health, consecutive_failures=0, last_error="")


def is_unreachable(
    health: ChannelHealth, now: datetime, threshold: int = THRESHOLD, window: timedelta = WINDOW
) -> bool:
    return (
        health.consecutive_failures >= threshold
        and health.last_failure_at is not None
        and now - health.last_failure_at < window
    )


def unreachable(
    healths: Iterable[ChannelHealth],
    now: datetime,
    threshold: int = THRESHOLD,
    window: timedelta = WINDOW,
) -> frozenset[str]:
    return frozenset(h.channel for h in healths if is_unreachable(h, now, threshold, window))
