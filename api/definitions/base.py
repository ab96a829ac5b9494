"""What the GraphQL types of every domain share: turning an engine model into a type
(`build`, `versioned`), who recorded a version (`Actor`) and the `Excerpt` of a cited source
version. It names no domain's type: the `Versioned` interface, which links a version to the
concern it came through, is `api.definitions.versioned`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from functools import cache, lru_cache
from typing import Any, TypeAlias, TypeVar

import strawberry
from pydantic import BaseModel

from engine.story import models as m

strawberry.enum(m.ActorKind)
ActorKind: TypeAlias = m.ActorKind

T = TypeVar("T")


@cache
def _declared(cls: type[Any]) -> tuple[str, ...]:
    """The field names a GraphQL type declares (read once per type)."""
    return tuple(f.name for f in dataclasses.fields(cls))


@cache
def _copied(cls: type[Any], model_cls: type[Any]) -> tuple[str, ...]:
    """The names a GraphQL type declares that a model of `model_cls` (pydantic or a
    dataclass) has: its fields, and its properties and other class attributes (worked out
    once per pair of types)."""
    if dataclasses.is_dataclass(model_cls):
        fields: Any = {f.name for f in dataclasses.fields(model_cls)}
    else:
        fields = model_cls.model_fields
    declared = _declared(cls)  # type: ignore[arg-type]
    return tuple(n for n in declared if n in fields or hasattr(model_cls, n))


def build(cls: type[T], model: BaseModel | Any, *beside: Any, **overrides: Any) -> T:
    """Copy the model's fields that the GraphQL type declares (same snake_case names); the
    overrides give the fields that differ (another name, an enum's value, a nested type).
    A record that wraps a model (the model plus what the shell keeps beside it) passes what
    it keeps `beside`: further models, or a mapping of stored properties; a name is taken
    from the first source that has it, and a mapping's absent key leaves the type's default.
    The one way a model becomes a type: a type's `from_model` is `build` with its overrides."""
    names = _copied(cls, type(model))  # type: ignore[arg-type]
    values = {n: getattr(model, n) for n in names if n not in overrides}
    for source in beside:
        for n, value in _given(cls, source).items():
            if n not in overrides:
                values.setdefault(n, value)
    return cls(**values, **overrides)


def _given(cls: type[Any], source: Any) -> dict[str, Any]:
    """What one source beside the model gives a type: the names it declares that a mapping
    holds, or that a model has."""
    if isinstance(source, Mapping):
        declared = _declared(cls)  # type: ignore[arg-type]
        return {n: source[n] for n in declared if n in source}
    copied = _copied(cls, type(source))  # type: ignore[arg-type]
    return {n: getattr(source, n) for n in copied}


@strawberry.type(description="Who recorded a version: a person (user id) or a run (run id).")
class Actor:
    kind: ActorKind
    id: str


@lru_cache(maxsize=4096)
def actor(a: m.Actor) -> Actor:
    """The GraphQL Actor of a (frozen) model Actor; answers never change it, so one serves all."""
    return Actor(kind=a.kind, id=a.id)


def versioned(cls: type[T], model: m.Version, **extra: Any) -> T:
    return build(cls, model, id=strawberry.ID(model.id), by=actor(model.by), **extra)


@strawberry.type(
    description="The cited text of exactly one source version, or why it is unavailable."
)
class Excerpt:
    source_id: str
    version: str
    locator: str
    available: bool
    text: str | None
    warning: str | None
    withdrawn_at: datetime | None = strawberry.field(
        default=None, description="when the app withdrew this version (its text is gone)"
    )
