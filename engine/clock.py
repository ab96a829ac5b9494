"""The one wall clock and the `Clock` type every use case carries.

Use cases take a `Clock` (a function returning an aware UTC `datetime`) instead of calling
`datetime.now`, so tests and loaders can move time and every decision sees one `now`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """The wall clock, in UTC (stdlib tzinfo, as the driver needs it: `graph.temporal`)."""
    return datetime.now(UTC)


# An instant as epoch microseconds in UTC: exact (Python keeps microseconds), cheap to pass
# in bulk (the Neo4j driver decodes an int for a fraction of a DateTime's cost: issue 14),
# and ordered as the instants are.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_us(value: datetime) -> int:
    """An aware datetime as epoch microseconds (UTC)."""
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_epoch_us(value: int) -> datetime:
    """Epoch microseconds as a stdlib-UTC `datetime` (the inverse of `epoch_us`)."""
    return EPOCH + timedelta(microseconds=value)
