"""GraphQL input types of the story graph writes.

They mirror `engine.story.inputs`; the GraphQL layer checks shapes and types, then the
pydantic models check the rules (refs resolve, intervals ordered, scopes well-formed), so
a rejected input is INVALID_INPUT before anything is read or written.
"""

from __future__ import annotations

import dataclasses
import enum
from datetime import datetime
from typing import Any

import strawberry

from api.definitions.story_types import ChangeKind, EntityStatus, SourceKind


def to_data(value: Any) -> Any:
    """Strawberry input → plain data for pydantic; unset (None) fields take the model default."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_data(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not None
        }
    if isinstance(value, list):
        return [to_data(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


@strawberry.input(description="A speaker of a pushed conversation and who said it.")
class SpeakerInput:
    name: str
    person_id: str
    channel: str = ""
    display_name: str = ""


@strawberry.input
class ReferenceInput:
    source_id: str
    source_version: str
    locator: str = strawberry.field(description="`chars:10-42`, `lines:3-5` or `msg:17`")


@strawberry.input
class StoryInput:
    ref: str
    name: str
    id: str | None = strawberry.field(default=None, description="a stored story of this scope")
    description: str | None = None


@strawberry.input
class EventInput:
    ref: str
    title: str
    at: datetime
    id: str | None = strawberry.field(
        default=None,
        description="a stored event of this scope to reuse (a message read again); anything "
        "else is new",
    )
    story: str | None = None
    description: str | None = None
    references: list[ReferenceInput] = strawberry.field(default_factory=list)


@strawberry.input
class EntityInput:
    ref: str = strawberry.field(description="the model's local id: meaningful in this result only")
    name: str
    id: str | None = strawberry.field(
        default=None,
        description="a stored Main entity of this scope to reuse; anything else is new",
    )
    kind: str | None = None
    description: str | None = None
    status: EntityStatus | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    references: list[ReferenceInput] = strawberry.field(default_factory=list)


@strawberry.input
class ChangeInput:
    event: str
    entity: str
    kind: ChangeKind
    note: str | None = None
    references: list[ReferenceInput] = strawberry.field(default_factory=list)


@strawberry.enum
class Stance(enum.Enum):
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"


@strawberry.input
class RelationInput:
    ref: str
    from_: str = strawberry.field(name="from")
    to: str
    type: str
    reason: str | None = None
    stance: Stance | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    references: list[ReferenceInput] = strawberry.field(default_factory=list)


@strawberry.input
class SummaryInput:
    ref: str
    text: str
    interval_start: datetime
    interval_end: datetime
    story: str | None = None
    source_ids: list[str] = strawberry.field(default_factory=list)
    events: list[str] = strawberry.field(default_factory=list)
    entities: list[str] = strawberry.field(default_factory=list)
    references: list[ReferenceInput] = strawberry.field(default_factory=list)


@strawberry.input(
    description="One whole organising result, written in one transaction or not at all."
)
class PublishResultInput:
    scope: str
    key: str = strawberry.field(description="client-supplied idempotency key")
    stories: list[StoryInput] = strawberry.field(default_factory=list)
    events: list[EventInput] = strawberry.field(default_factory=list)
    entities: list[EntityInput] = strawberry.field(default_factory=list)
    changes: list[ChangeInput] = strawberry.field(default_factory=list)
    relations: list[RelationInput] = strawberry.field(default_factory=list)
    summaries: list[SummaryInput] = strawberry.field(default_factory=list)
    decisions: list[str] = strawberry.field(default_factory=list)
    open_items: list[str] = strawberry.field(default_factory=list)
    feedback: str | None = None
    notify: bool | None = None


@strawberry.input
class SourceVersionInput:
    version: str
    text: str | None = strawberry.field(default=None, description="null: known but not supplied")


@strawberry.input(
    description="One message of a conversation; recorded as the line `[at] speaker: text`."
)
class MessageInput:
    speaker: str = strawberry.field(description="who said it: a person of every fact it states")
    text: str
    at: datetime | None = strawberry.field(
        default=None, description="when it was said, with a zone; null: when recorded"
    )


@strawberry.input(description="An app pushes a conversation, note or knowledge document version.")
class UpsertSourceInput:
    scope: str
    id: str
    kind: SourceKind
    version: str
    text: str | None = strawberry.field(
        default=None,
        description="the version's text; a conversation's lines read `[time] name: text`, "
        "`name: text` or `name：text` (a line without one continues the message before it)",
    )
    messages: list[MessageInput] | None = strawberry.field(
        default=None,
        description="a conversation as structured messages, instead of `text`",
    )
    title: str | None = None
    previous: list[SourceVersionInput] = strawberry.field(default_factory=list)
    speakers: list[SpeakerInput] | None = strawberry.field(
        default=None,
        description="who each speaker of this conversation is: a concern person id and "
        "channel (the agenda reaches a speaker only so, never by an equal name)",
    )


@strawberry.input(description="A person's edit: only the given fields change.")
class EntityEditInput:
    name: str | None = None
    kind: str | None = None
    description: str | None = None
    status: EntityStatus | None = None
    confirm: list[str] = strawberry.field(default_factory=list)
    results: list[str] = strawberry.field(
        default_factory=list, description="results whose description this edit also amends"
    )
