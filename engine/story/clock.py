"""The two clocks of every fact (DESIGN "Time").

valid time (`valid_from`/`valid_to`, an event's `at`) says when it held in the world; record
time (`recorded_at`/`retracted_at`) says when this service believed it. An open record time is
stored as `FOREVER` so that "current" and "as of" reads are both index range lookups.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

FOREVER = datetime(9999, 12, 31, tzinfo=UTC)
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)  # an open lower bound as an index range value


def aware(value: datetime) -> datetime:
    """Reject naive datetimes: every stored time is timezone-aware (compared across zones)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("time values must be timezone-aware")
    return value


def open_end(value: datetime | None) -> datetime | None:
    """`FOREVER` (or None) means "not retracted"; callers see None."""
    if value is None or value >= FOREVER:
        return None
    return value


def recorded_within(recorded_at: datetime, retracted_at: datetime | None, as_of: datetime) -> bool:
    """asOf T shows versions with recorded_at <= T < retracted_at (DESIGN "Time")."""
    end = retracted_at or FOREVER
    return recorded_at <= as_of < end


def valid_within(
    valid_from: datetime | None, valid_to: datetime | None, valid_at: datetime
) -> bool:
    """validAt T shows what held in the world at T: valid_from <= T < valid_to (open ends)."""
    if valid_from is not None and valid_from > valid_at:
        return False
    return valid_to is None or valid_at < valid_to


Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """The wall clock; repositories take a `Clock` so tests and loaders can move time."""
    return datetime.now(UTC)
