"""The one wall clock and the `Clock` type every use case carries.

Use cases take a `Clock` (a function returning an aware UTC `datetime`) instead of calling
`datetime.now`, so tests and loaders can move time and every decision sees one `now`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """The wall clock, in UTC (stdlib tzinfo, as the driver needs it: `graph.temporal`)."""
    return datetime.now(UTC)
