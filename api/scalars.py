"""The DateTime scalar this API parses: an instant, so it must carry a time zone.

strawberry's own DateTime accepts `2024-05-01T10:00:00` and hands a naive datetime to the
resolver, which cannot compare it with the stored UTC instants (design: "A time without a
zone in any argument is INVALID_INPUT"). Rejecting it while coercing the argument makes every
DateTime argument and input field answer INVALID_INPUT naming the argument, before any
resolver runs; the name and the output format stay those of strawberry's scalar.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import dateutil.parser
from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.schema.types.base_scalars import DateTimeDefinition
from strawberry.types.scalar import ScalarDefinition

ZONE_HINT = "an offset such as Z or +08:00"
EXAMPLE = "2024-05-01T10:00:00+08:00"
FORM = f"a DateTime is an ISO 8601 date and time with a zone, such as {EXAMPLE}"
_DATE_SHAPED = re.compile(r"^\d{4}-\d{2}-\d{2}")


class InvalidDateTime(StrawberryInputCoercionError):
    """A value the DateTime scalar refuses; `value` lets the error name the argument that held
    it (`api.request_errors.describe`). Every message says what the value is not and the form
    a DateTime takes."""

    def __init__(self, value: object, message: str) -> None:
        super().__init__(message)
        self.value = value


class NaiveDateTime(InvalidDateTime):
    """A DateTime without a zone."""

    def __init__(self, value: str) -> None:
        super().__init__(
            value, f'"{value}" has no time zone; a DateTime must carry one ({ZONE_HINT})'
        )


def not_an_instant(value: object, problem: str | None = None) -> InvalidDateTime:
    """The error for a value that is no instant: a date the calendar lacks (Feb 30, month 13)
    names the calendar's complaint; anything else says it is no ISO 8601 date and time."""
    if isinstance(value, str) and problem and _DATE_SHAPED.match(value):
        return InvalidDateTime(
            value, f'"{value}" is not a date and time on the calendar ({problem}); {FORM}'
        )
    shown = value if isinstance(value, str) else json.dumps(value, default=str)
    return InvalidDateTime(value, f'"{shown}" is not a date and time; {FORM}')


def parse_instant(value: object) -> dt.datetime:
    if not isinstance(value, str):
        raise not_an_instant(value)
    try:
        parsed = dateutil.parser.isoparse(value)
    except (ValueError, OverflowError) as exc:
        raise not_an_instant(value, str(exc)) from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise NaiveDateTime(value)
    return parsed


AwareDateTime = ScalarDefinition(
    name=DateTimeDefinition.name,
    description=DateTimeDefinition.description,
    specified_by_url=None,
    serialize=DateTimeDefinition.serialize,
    parse_value=parse_instant,
    parse_literal=None,
    origin=dt.datetime,
)

SCALAR_OVERRIDES: dict[object, ScalarDefinition] = {dt.datetime: AwareDateTime}
