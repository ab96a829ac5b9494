"""What clients send: publishResult, upsertSource and the correction mutations.

Validation happens here, at the edge: a malformed input is INVALID_INPUT before anything
is read or written. A stored-identity field that is malformed is *not* an error:
docs/rules/reviews.md says such a field only produces a new entity
(格式错误的旧模型身份字段只产生新实体).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from engine.clock import utc
from engine.errors import InvalidInput
from engine.scope import check_scope
from engine.story.models import CONCERN_SOURCE_PREFIX, ChangeKind, EntityStatus, SourceKind

ENTITY_ID_PATTERN = re.compile(r"^ent_[0-9a-f]{24}$")
STORY_ID_PATTERN = re.compile(r"^sty_[0-9a-f]{24}$")
EVENT_ID_PATTERN = re.compile(r"^evt_[0-9a-f]{24}$")
LOCATOR_PATTERN = re.compile(r"^[a-z]+:\S.{0,199}$")

Ref = Annotated[str, Field(min_length=1, max_length=100)]
Text = Annotated[str, Field(max_length=20_000)]
Name = Annotated[str, Field(min_length=1, max_length=300)]
EDITABLE_ENTITY_FIELDS: tuple[str, ...] = ("name", "kind", "description", "status")
T = TypeVar("T", bound=BaseModel)


def _utc_or_none(value: datetime | None) -> datetime | None:
    return None if value is None else utc(value)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReferenceIn(_In):
    source_id: Name
    source_version: Annotated[str, Field(min_length=1, max_length=100)]
    locator: str

    @field_validator("locator")
    @classmethod
    def _locator(cls, value: str) -> str:
        if not LOCATOR_PATTERN.match(value):
            raise ValueError("locator must look like 'chars:10-42', 'lines:3-5' or 'msg:17'")
        return value


class StoryIn(_In):
    ref: Ref
    id: str | None = None  # a stored story of this scope; never a fallback to another scope
    name: Name
    description: Text = ""


class EventIn(_In):
    ref: Ref
    id: str | None = None  # a stored event of this scope to reuse (a re-read message); else new
    # the identity of the words it stands on (`engine.review.passage`): the same passage is
    # the same event in every result of the scope
    passage: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    story: Ref | None = None
    title: Name
    description: Text = ""
    at: datetime
    references: list[ReferenceIn] = Field(default_factory=list)

    _at = field_validator("at")(utc)

    @property
    def well_formed_id(self) -> str | None:
        return self.id if self.id is not None and EVENT_ID_PATTERN.match(self.id) else None


class EntityIn(_In):
    ref: Ref  # the model's local id: meaningful inside this result only
    id: str | None = None  # a stored identity field; reused only if well-formed, same scope, Main
    name: Name
    kind: Annotated[str, Field(max_length=100)] | None = None
    description: Text | None = None
    status: EntityStatus | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    references: list[ReferenceIn] = Field(default_factory=list)

    _valid = field_validator("valid_from", "valid_to")(_utc_or_none)

    @property
    def well_formed_id(self) -> str | None:
        return self.id if self.id is not None and ENTITY_ID_PATTERN.match(self.id) else None


class ChangeIn(_In):
    event: Ref
    entity: Ref
    kind: ChangeKind
    note: Text = ""
    references: list[ReferenceIn] = Field(default_factory=list)


class Stance(StrEnum):
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"


class RelationIn(_In):
    ref: Ref
    from_: Ref = Field(alias="from")
    to: Ref
    type: Annotated[str, Field(min_length=1, max_length=100)]
    reason: Text = ""
    stance: Stance = Stance.SUPPORTS
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    references: list[ReferenceIn] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    _valid = field_validator("valid_from", "valid_to")(_utc_or_none)


class SummaryIn(_In):
    ref: Ref
    story: Ref | None = None
    text: Annotated[str, Field(min_length=1, max_length=20_000)]
    interval_start: datetime
    interval_end: datetime
    source_ids: list[Name] = Field(default_factory=list)
    events: list[Ref] = Field(default_factory=list)
    entities: list[Ref] = Field(default_factory=list)
    references: list[ReferenceIn] = Field(default_factory=list)

    _interval = field_validator("interval_start", "interval_end")(utc)

    @model_validator(mode="after")
    def _ordered(self) -> SummaryIn:
        if self.interval_end < self.interval_start:
            raise ValueError("interval_end is before interval_start")
        return self


class RangeIn(_In):
    """A range of one source version; `end` None: the whole version. `reason`: why it was
    missed (a missed range only)."""

    source_id: Name
    version: Name
    start: int = Field(default=0, ge=0)
    end: int | None = Field(default=None, ge=0)
    reason: Name | None = None


class CoverageIn(_In):
    """What a result's publisher read and what it could not (docs/rules/reviews.md:
    部分来源不可用…显示 已覆盖与遗漏范围；部分结果不标为完整). A result with any missed range is
    not complete."""

    covered: list[RangeIn] = Field(default_factory=list)
    missed: list[RangeIn] = Field(default_factory=list)


class PublishResultInput(_In):
    """One whole organising result (docs/rules/reviews.md): written in one transaction or not at
    all."""

    scope: str
    key: Annotated[str, Field(min_length=1, max_length=200)]
    stories: list[StoryIn] = Field(default_factory=list)
    events: list[EventIn] = Field(default_factory=list)
    entities: list[EntityIn] = Field(default_factory=list)
    changes: list[ChangeIn] = Field(default_factory=list)
    relations: list[RelationIn] = Field(default_factory=list)
    summaries: list[SummaryIn] = Field(default_factory=list)
    decisions: list[Text] = Field(default_factory=list)
    open_items: list[Text] = Field(default_factory=list)
    feedback: Text = ""
    notify: bool = False
    coverage: CoverageIn | None = None  # None: the publisher states no coverage

    _scope = field_validator("scope")(check_scope)

    @model_validator(mode="after")
    def _refs_resolve(self) -> PublishResultInput:
        def unique(kind: str, refs: list[str]) -> set[str]:
            if len(set(refs)) != len(refs):
                raise ValueError(f"duplicate {kind} ref")
            return set(refs)

        stories = unique("story", [s.ref for s in self.stories])
        events = unique("event", [e.ref for e in self.events])
        entities = unique("entity", [e.ref for e in self.entities])
        unique("relation", [r.ref for r in self.relations])
        unique("summary", [s.ref for s in self.summaries])
        reused = [e.well_formed_id for e in self.entities if e.well_formed_id]
        if len(set(reused)) != len(reused):
            raise ValueError("two entity refs name the same stored entity id")
        reused_events = [e.well_formed_id for e in self.events if e.well_formed_id]
        if len(set(reused_events)) != len(reused_events):
            raise ValueError("two event refs name the same stored event id")
        passages = [e.passage for e in self.events if e.passage and not e.id]
        if len(set(passages)) != len(passages):
            raise ValueError("two event refs state the same passage")
        for ev in self.events:
            if ev.story is not None and ev.story not in stories:
                raise ValueError(f"event {ev.ref!r} names unknown story ref {ev.story!r}")
        for ch in self.changes:
            if ch.event not in events or ch.entity not in entities:
                raise ValueError(f"change {ch.event!r}->{ch.entity!r} names an unknown ref")
        for rel in self.relations:
            if rel.from_ not in entities or rel.to not in entities:
                raise ValueError(f"relation {rel.ref!r} names an unknown entity ref")
            if rel.from_ == rel.to:
                raise ValueError(f"relation {rel.ref!r} points at itself")
        for sm in self.summaries:
            if sm.story is not None and sm.story not in stories:
                raise ValueError(f"summary {sm.ref!r} names unknown story ref")
            if not set(sm.events) <= events or not set(sm.entities) <= entities:
                raise ValueError(f"summary {sm.ref!r} names an unknown event or entity ref")
        return self

    def payload_hash(self) -> str:
        """Same key with the same payload is a repeat; with another payload it is a conflict."""
        return hashlib.sha256(self.model_dump_json(by_alias=True).encode("utf-8")).hexdigest()

    def all_references(self) -> list[ReferenceIn]:
        refs: list[ReferenceIn] = []
        for group in (self.events, self.entities, self.changes, self.relations, self.summaries):
            for item in group:
                refs.extend(item.references)
        return refs


class SourceVersionIn(_In):
    version: Annotated[str, Field(min_length=1, max_length=100)]
    text: str | None = None  # None: the app knows the version but cannot supply its text


class SourceInput(_In):
    """An app pushes a conversation, note or knowledge document with its version (upsertSource).

    `previous` lists older versions the app knows; an older version stays readable only if
    the app supplies its text, otherwise it is recorded as unavailable (docs/rules/story-graph.md).
    """

    scope: str
    id: Name
    kind: SourceKind
    title: Annotated[str, Field(max_length=300)] = ""
    version: Annotated[str, Field(min_length=1, max_length=100)]
    text: str
    previous: list[SourceVersionIn] = Field(default_factory=list)

    _scope = field_validator("scope")(check_scope)

    @field_validator("id")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        # a concern's conversation is the loop's own source, and ordinary reviews skip
        # its prefix (docs/rules/loop-standing.md): no app may write one
        if value.startswith(CONCERN_SOURCE_PREFIX):
            raise ValueError(
                f"a source id must not start with {CONCERN_SOURCE_PREFIX!r}: "
                "the prefix is reserved for the conversations of concerns"
            )
        return value

    @model_validator(mode="after")
    def _distinct(self) -> SourceInput:
        names = [self.version, *(p.version for p in self.previous)]
        if len(set(names)) != len(names):
            raise ValueError("duplicate source version")
        return self


class EntityEdit(_In):
    """A person's edit: only the given fields change; `confirm` marks fields as confirmed."""

    name: Name | None = None
    kind: Annotated[str, Field(max_length=100)] | None = None
    description: Text | None = None
    status: EntityStatus | None = None
    confirm: list[str] = Field(default_factory=list)
    results: list[str] = Field(default_factory=list)  # results the person chose to amend too

    @field_validator("confirm")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = set(value) - set(EDITABLE_ENTITY_FIELDS)
        if unknown:
            raise ValueError(f"cannot confirm unknown fields {sorted(unknown)}")
        return value

    def changed(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in EDITABLE_ENTITY_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = str(value)
        return out


def parse_input(model: type[T], data: object) -> T:
    """Validate raw client data, turning pydantic's errors into INVALID_INPUT."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(
            "invalid input",
            errors=[
                {"loc": ".".join(str(p) for p in err["loc"]), "msg": err["msg"]}
                for err in exc.errors(include_url=False, include_input=False)
            ],
        ) from None
