"""Models <-> Neo4j property maps.

Times are stored as Neo4j datetimes in UTC (graph.temporal); an open record time is `FOREVER`, so
current and as-of reads are index range lookups; the actor is stored as "user:<id>" or
"run:<id>"; enums as their values.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from functools import cache, lru_cache
from typing import Any, TypeVar

from neo4j.time import DateTime
from pydantic import BaseModel

from engine import clock
from engine.clock import FOREVER, open_end
from engine.story.models import Actor, Version
from graph.temporal import from_neo4j, to_neo4j

M = TypeVar("M", bound=BaseModel)
V = TypeVar("V", bound=Version)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return to_neo4j(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Actor):
        return value.label()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def to_props(model: BaseModel) -> dict[str, Any]:
    props = {name: _plain(getattr(model, name)) for name in type(model).model_fields}
    if isinstance(model, Version):
        props["retracted_at"] = to_neo4j(model.retracted_at or FOREVER)
    return props


def write_row(model: BaseModel) -> dict[str, Any]:
    """A model as a row of a bulk write: `props` without its instants, and `instants`, each
    instant as [epoch seconds, nanosecond] in UTC, which the write query turns back into a
    DateTime with `SET v[k] = datetime({epochSeconds: .., nanosecond: ..})`. The driver packs
    a datetime parameter in ~33 µs (DateTime.from_native, pytz, clock arithmetic), two ints
    in a fraction of that: 200 events and their changes, references and entities carry
    ~1,800 instants. The stored values are the same UTC DateTimes."""
    props = to_props(model)
    instants = {}
    for name, value in props.items():
        if isinstance(value, datetime):
            seconds, micro = divmod(clock.epoch_us(value), 1_000_000)
            instants[name] = [seconds, micro * 1000]
    for name in instants:
        del props[name]
    return {"props": props, "instants": instants}


def version_row(model: Version) -> dict[str, Any]:
    return {"id": model.id, "scope": model.scope, "seq": model.seq, **write_row(model)}


@cache
def instant_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The model's datetime fields: where a read returned an instant as epoch microseconds."""
    return frozenset(
        n for n, f in cls.model_fields.items() if f.annotation in (datetime, datetime | None)
    )


@lru_cache(maxsize=4096)
def _actor(label: str) -> Actor:
    """A stored actor label as an Actor (frozen, so one instance serves every row)."""
    return Actor.parse(label)


def from_props(cls: type[M], props: dict[str, Any]) -> M:
    """A model from stored properties; instants may come as driver DateTimes or, from reads
    that build them in the RETURN, as epoch microseconds. Only the model's own
    instant fields are looked at (a row of a 500-object window is decoded in a few µs): a
    story model holds instants in `datetime` fields only (test_codec checks every model)."""
    data = dict(props)
    for k in instant_fields(cls):
        v = data.get(k)
        if type(v) is int:
            data[k] = clock.from_epoch_us(v)
        elif isinstance(v, DateTime):
            data[k] = from_neo4j(v)
    by = data.get("by")
    if type(by) is str:
        data["by"] = _actor(by)
    if "retracted_at" in data:
        retracted = data["retracted_at"]
        data["retracted_at"] = open_end(retracted) if isinstance(retracted, datetime) else None
    return cls.model_validate(data)


def decode(cls: type[V], props: dict[str, Any], *, believed: bool) -> V:
    """A version row; a believed version (read as of a moment) shows no retraction, since a
    later retraction is not known at that moment (docs/rules/story-graph.md#time). Built without
    a copy."""
    return from_props(cls, {**props, "retracted_at": None} if believed else props)
