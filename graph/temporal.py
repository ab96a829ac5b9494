"""Datetimes across the Neo4j boundary, in UTC both ways (docs/rules/story-graph.md#time).

Neo4j compares two datetimes of one instant by offset as well (`10:10+08:00 = 02:10Z` is
false, and `<=` between them is false too), so an instant is stored and passed as a parameter
in UTC only (a migration in `cypher/schema/` rewrote the values stored before). The
stdlib UTC tzinfo is what goes to the driver: its packer crashed (SIGSEGV) on ZoneInfo and
pydantic tzinfos in this stack. Values read back are stdlib-UTC `datetime`s.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j.time import DateTime

from engine import clock
from engine.clock import utc


def to_neo4j(value: Any) -> Any:
    """An aware datetime as the same instant in UTC (lists too); other values unchanged."""
    if isinstance(value, datetime):
        return utc(value)
    if isinstance(value, list):
        return [to_neo4j(v) for v in value]
    return value


def from_neo4j(value: Any) -> Any:
    """A Neo4j DateTime as a stdlib-UTC `datetime` (lists too); other values unchanged."""
    if isinstance(value, DateTime):
        return value.to_native().astimezone(UTC)
    if isinstance(value, list):
        return [from_neo4j(v) for v in value]
    return value


# Instants read in bulk cross the driver as integers: the driver's DateTime decoding costs
# ~110 µs a value, an int a fraction of that. A query returns an instant as
# `t.epochMillis * 1000 + t.microsecond % 1000` (exact: Python keeps microseconds; not
# `epochSeconds`, which Neo4j truncates toward zero, one second late for a time before 1970
# with a fraction) and the caller turns it back here, once (`engine.clock` holds the
# conversion). Stored values stay real UTC DateTimes.


def from_epoch_us(value: Any) -> Any:
    """An instant returned as epoch microseconds as a stdlib-UTC `datetime`; None stays None."""
    if value is None:
        return None
    return clock.from_epoch_us(value)


def to_epoch_us(value: datetime) -> int:
    """The inverse of `from_epoch_us` (for cursors and parameters compared with such ints)."""
    return clock.epoch_us(utc(value))
