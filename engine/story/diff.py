"""What changed between two record times (`storyGraphDiff`).

An entry compares one object as it was believed at `since` with the same object believed at
`until`; it is exactly the difference of the two as-of reads (a property test holds this):

| before (at since) | after (at until)                          | entry     |
|-------------------|-------------------------------------------|-----------|
| none              | a version                                 | added     |
| a version         | `removed` turned true (a relation)        | removed   |
| a version         | `removed` turned false                    | restored  |
| a version         | confirmation turned `rejected`, or a      | retracted |
|                   | suggestion dismissed                      |           |
| a version         | any other field differs                   | revised   |
| a version         | every field equal                         | no entry  |

The fields compared are a model's own fields, without its bookkeeping (`BOOKKEEPING`: the
sequence number, record times, who and why, the result or the concern that wrote it) and
without what it keeps for the engine alone (`INTERNAL_FIELDS`: a signal's fingerprint), so
an entry shows only fields its object's GraphQL type answers.
Signals are diffed like the rest: a new one is added, a status change (open →
kept, changed, settled, unresolved) is a revision of its `status`. Who made the change, why
and through which result or concern come from the version believed at `until`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from engine.errors import InvalidInput
from engine.story.models import Actor, Summary, Version

Diffable = Version | Summary  # the objects a diff compares

BOOKKEEPING: frozenset[str] = frozenset(
    {"id", "scope", "seq", "recorded_at", "retracted_at", "by", "why", "via_result", "via_concern"}
)


class DiffKind(StrEnum):
    ADDED = "added"
    REVISED = "revised"
    RETRACTED = "retracted"
    REMOVED = "removed"
    RESTORED = "restored"


class FieldChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    field: str
    before: str | None
    after: str | None


class DiffEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    object_kind: str  # story | event | entity | relation | suggestion | summary | signal
    object_id: str
    change: DiffKind
    changed_at: datetime  # the object's last change in the window
    fields: tuple[FieldChange, ...]
    by: Actor | None = None
    why: str = ""
    result_id: str | None = None
    via_concern: str | None = None  # the concern whose answer made the change (by a person)


def render(value: Any) -> str | None:
    """A field value as text for the answer (lists joined, instants in ISO 8601, JSON booleans)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(str(render(v)) for v in value)
    if isinstance(value, StrEnum):
        return value.value
    return str(value)


def _compared(model_cls: type[BaseModel]) -> list[str]:
    """The fields a diff compares: a model's own, without its bookkeeping and the fields it
    keeps for the engine (`Version.INTERNAL_FIELDS`)."""
    hidden = BOOKKEEPING | getattr(model_cls, "INTERNAL_FIELDS", frozenset())
    return [name for name in model_cls.model_fields if name not in hidden]


def _values(model: BaseModel | None) -> dict[str, Any]:
    if model is None:
        return {}
    return {name: getattr(model, name) for name in _compared(type(model))}


def changed_fields(before: BaseModel | None, after: BaseModel) -> tuple[FieldChange, ...]:
    """The fields whose values differ; an added object lists only the fields it fills (an
    empty list or text is no value to show)."""
    old, new = _values(before), _values(after)
    changes = (
        FieldChange(field=name, before=render(old.get(name)), after=render(new.get(name)))
        for name in sorted(set(old) | set(new))
        if old.get(name) != new.get(name)
    )
    return tuple(c for c in changes if c.before is not None or c.after not in (None, ""))


def classify(before: BaseModel | None, after: BaseModel) -> DiffKind | None:
    if before is None:
        return DiffKind.ADDED
    fields = {c.field for c in changed_fields(before, after)}
    if not fields:
        return None
    if "removed" in fields:
        return DiffKind.REMOVED if getattr(after, "removed", False) else DiffKind.RESTORED
    if "confirmation" in fields and str(getattr(after, "confirmation", "")) == "rejected":
        return DiffKind.RETRACTED
    if "status" in fields and str(getattr(after, "status", "")) == "dismissed":
        return DiffKind.RETRACTED
    return DiffKind.REVISED


def entry(
    object_kind: str, before: Diffable | None, after: Diffable, changed_at: datetime
) -> DiffEntry | None:
    """The entry for one object, or None when its value did not change."""
    change = classify(before, after)
    if change is None:
        return None
    return DiffEntry(
        object_kind=object_kind,
        object_id=after.id,
        change=change,
        changed_at=changed_at,
        fields=changed_fields(before, after),
        by=after.by if isinstance(after, Version) else None,
        why=after.why if isinstance(after, Version) else "",
        result_id=after.via_result if isinstance(after, Version) else after.result_id,
        via_concern=after.via_concern if isinstance(after, Version) else None,
    )


def check_window(since: datetime, until: datetime) -> None:
    """`since` must not be after `until` (INVALID_INPUT at the edge)."""
    if since > until:
        raise InvalidInput("since must not be after until", since=since.isoformat())
