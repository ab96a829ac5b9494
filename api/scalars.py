"""The DateTime scalar this API parses: an instant, so it must carry a time zone.

strawberry's own DateTime accepts `2024-05-01T10:00:00` and hands a naive datetime to the
resolver, which cannot compare it with the stored UTC instants (design: "A time without a
zone in any argument is INVALID_INPUT"). Rejecting it while coercing the argument makes every
DateTime argument and input field answer INVALID_INPUT naming the argument, before any
resolver runs; the name and the output format stay those of strawberry's scalar.
"""

from __future__ import annotations

import datetime as dt

import dateutil.parser
from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.schema.types.base_scalars import DateTimeDefinition
from strawberry.types.scalar import ScalarDefinition

ZONE_HINT = "an offset such as Z or +08:00"


class NaiveDateTime(StrawberryInputCoercionError):
    """A DateTime without a zone; `value` lets the error name the argument that held it."""

    def __init__(self, value: str) -> None:
        super().__init__(f'"{value}" has no time zone; a DateTime must carry one ({ZONE_HINT})')
        self.value = value


def parse_instant(value: object) -> dt.datetime:
    if not isinstance(value, str):
        raise StrawberryInputCoercionError(
            f'Value cannot represent a DateTime: "{value}". Expected an ISO 8601 string.'
        )
    try:
        parsed = dateutil.parser.isoparse(value)
    except (ValueError, OverflowError) as exc:
        raise StrawberryInputCoercionError(
            f'Value cannot represent a DateTime: "{value}". {exc}'
        ) from None
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
