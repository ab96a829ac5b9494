"""The one wall clock, the `Clock` type every use case carries, and the two clocks of every fact.

Use cases take a `Clock` (a function returning an aware UTC `datetime`) instead of calling
`datetime.now`, so tests and loaders can move time and every decision sees one `now`.

valid time (`valid_from`/`valid_to`, an event's `at`) says when it held in the world; record
time (`recorded_at`/`retracted_at`) says when this service believed it. An open record time is
stored as `FOREVER` so that "current" and "as of" reads are both index range lookups.

Every instant is held, stored and compared in UTC. Neo4j orders two datetimes of the same
instant by their offset and never calls them equal (`10:10+08:00 = 02:10Z` is false and
`10:10+08:00 <= 02:10Z` is false too), so a time written with one offset and read with another
would miss the exact boundary of `recorded_at <= T < retracted_at`. A time without a zone names
no instant: models reject it, and read arguments answer INVALID_INPUT (`instant`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import overload

from engine.errors import InvalidInput

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """The wall clock, in UTC (stdlib tzinfo, as the driver needs it: `graph.temporal`)."""
    return datetime.now(UTC)


# An instant as epoch microseconds in UTC: exact (Python keeps microseconds), cheap to pass
# in bulk (the Neo4j driver decodes an int for a fraction of a DateTime's cost),
# and ordered as the instants are.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_us(value: datetime) -> int:
    """An aware datetime as epoch microseconds (UTC)."""
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_epoch_us(value: int) -> datetime:
    """Epoch microseconds as a stdlib-UTC `datetime` (the inverse of `epoch_us`)."""
    return EPOCH + timedelta(microseconds=value)


FOREVER = datetime(9999, 12, 31, tzinfo=UTC)
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)  # an open lower bound as an index range value


def utc(value: datetime) -> datetime:
    """The same instant in UTC (stdlib tzinfo); a time without a zone is a ValueError."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("time values must carry a time zone (an offset such as Z or +08:00)")
    return value.astimezone(UTC)


@overload
def instant(value: datetime, argument: str) -> datetime: ...
@overload
def instant(value: None, argument: str) -> None: ...
@overload
def instant(value: datetime | None, argument: str) -> datetime | None: ...
def instant(value: datetime | None, argument: str) -> datetime | None:
    """A read argument (`asOf`, `validAt`, `from`, `to`) in UTC; without a zone: INVALID_INPUT."""
    if value is None:
        return None
    try:
        return utc(value)
    except ValueError:
        raise InvalidInput(
            f"{argument} must carry a time zone (an offset such as Z or +08:00)",
            argument=argument,
            value=value.isoformat(),
        ) from None


def open_end(value: datetime | None) -> datetime | None:
    """`FOREVER` (or None) means "not retracted"; callers see None."""
    if value is None or value >= FOREVER:
        return None
    return value


def recorded_within(recorded_at: datetime, retracted_at: datetime | None, as_of: datetime) -> bool:
    """asOf T shows versions with recorded_at <= T < retracted_at
    (docs/rules/story-graph.md#time)."""
    end = retracted_at or FOREVER
    return recorded_at <= as_of < end


def valid_within(
    valid_from: datetime | None, valid_to: datetime | None, valid_at: datetime
) -> bool:
    """validAt T shows what held in the world at T: valid_from <= T < valid_to (open ends)."""
    if valid_from is not None and valid_from > valid_at:
        return False
    return valid_to is None or valid_at < valid_to
