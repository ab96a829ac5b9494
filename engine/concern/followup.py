"""Follow-up intervals and limits (docs/rules/concerns.md).

| priority | 1st follow-up | 2nd   | 3rd and later | max follow-ups          |
|----------|---------------|-------|---------------|-------------------------|
| critical | 30 min        | 1 h   | 2 h           | unlimited (until escalation) |
| high     | 2 h           | 4 h   | 8 h           | 5                       |
| medium   | 4 h           | 8 h   | 24 h          | 3                       |
| low      | 24 h          | 48 h  | —             | 2                       |

Intervals never decrease ("间隔递增，避免骚扰"). The interval is the wait before the next
follow-up, counted from the last outbound message (or from the reply that asked for more
time). `followup_count` is the number of scheduled follow-up rounds already sent; the
initial contact is not a follow-up, and neither is an answer to a fresh reply (outreach.py).
Silence runs this table whatever the model proposes (loop.py `_silence_only`).

At the limit (a follow-up is due but `followup_count >= max`):
critical / high → escalate; medium / low → dropped and written to `recent_decisions`.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from engine.concern.model import Priority

_H = timedelta(hours=1)

FOLLOWUP_INTERVALS: dict[Priority, tuple[timedelta, ...]] = {
    Priority.CRITICAL: (timedelta(minutes=30), _H, 2 * _H),
    Priority.HIGH: (2 * _H, 4 * _H, 8 * _H),
    Priority.MEDIUM: (4 * _H, 8 * _H, 24 * _H),
    Priority.LOW: (24 * _H, 48 * _H),
}

MAX_FOLLOWUPS: dict[Priority, int | None] = {
    Priority.CRITICAL: None,
    Priority.HIGH: 5,
    Priority.MEDIUM: 3,
    Priority.LOW: 2,
}


class LimitOutcome(StrEnum):
    ESCALATE = "escalate"
    DROP = "drop"


LIMIT_OUTCOMES: dict[Priority, LimitOutcome] = {
    Priority.CRITICAL: LimitOutcome.ESCALATE,
    Priority.HIGH: LimitOutcome.ESCALATE,
    Priority.MEDIUM: LimitOutcome.DROP,
    Priority.LOW: LimitOutcome.DROP,
}


def max_followups(priority: Priority) -> int | None:
    """The most follow-ups a concern of this priority may send; None means unlimited."""
    return MAX_FOLLOWUPS[priority]


def at_limit(priority: Priority, followup_count: int) -> bool:
    """True when no further follow-up may be sent."""
    limit = MAX_FOLLOWUPS[priority]
    return limit is not None and followup_count >= limit


def limit_outcome(priority: Priority) -> LimitOutcome:
    return LIMIT_OUTCOMES[priority]


def followup_interval(priority: Priority, followup_count: int) -> timedelta | None:
    """The wait before follow-up number `followup_count + 1`; None once the limit is reached.

    The last listed interval repeats ("三次及以后") for priorities with more allowed rounds.
    """
    if followup_count < 0:
        raise ValueError("followup_count must be >= 0")
    if at_limit(priority, followup_count):
        return None
    table = FOLLOWUP_INTERVALS[priority]
    return table[min(followup_count, len(table) - 1)]


def final_wait(priority: Priority) -> timedelta:
    """How long to wait for an answer after the last allowed follow-up before the limit rule."""
    return FOLLOWUP_INTERVALS[priority][-1]
