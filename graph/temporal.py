"""Datetimes across the Neo4j boundary, in UTC both ways (DESIGN "Time").

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

from engine.story.clock import utc


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
