"""The story graph objects (docs/rules/story-graph.md) as stored versions.

Every versioned object (Story, Event, Entity, Relation, Suggestion) is a sequence of
immutable versions: `seq` counts them, `recorded_at`/`retracted_at` bound when the service
believed each one, and `by`/`why` say who made it (a user id or a run id) and why. Changes,
Summaries, References and Results are recorded once and never rewritten
(docs/rules/story-graph.md#time).
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from enum import StrEnum
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.clock import utc


class ActorKind(StrEnum):
    USER = "user"
    RUN = "run"
    PERSON = (
        "person"  # a concern person (person id; docs/rules/concerns.md) answering through a concern
    )


class Actor(BaseModel):
    """Who recorded a version: a person (user id) or an organising run (run id)."""

    model_config = ConfigDict(frozen=True)

    kind: ActorKind
    id: str = Field(min_length=1, max_length=200)

    @classmethod
    def user(cls, user_id: str) -> Actor:
        return cls(kind=ActorKind.USER, id=user_id)

    @classmethod
    def run(cls, run_id: str) -> Actor:
        return cls(kind=ActorKind.RUN, id=run_id)

    @classmethod
    def person(cls, person_id: str) -> Actor:
        return cls(kind=ActorKind.PERSON, id=person_id)

    @property
    def is_user(self) -> bool:
        return self.kind is ActorKind.USER

    def label(self) -> str:
        return f"{self.kind.value}:{self.id}"

    @classmethod
    def parse(cls, label: str) -> Actor:
        kind, _, ident = label.partition(":")
        return cls(kind=ActorKind(kind), id=ident)


class ChangeKind(StrEnum):
    """How an event touches an entity (提出、补充、验证、修订; docs/rules/reviews.md)."""

    PROPOSED = "proposed"
    SUPPLEMENTED = "supplemented"
    VERIFIED = "verified"
    REVISED = "revised"


class EntityStatus(StrEnum):
    """Only a Main entity may be reused by a later run.

    docs/rules/reviews.md: 跨 run 仅允许引用同 scope 的 Main 候选实体.
    """

    CANDIDATE = "candidate"
    MAIN = "main"


class Confirmation(StrEnum):
    SUGGESTED = "suggested"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class SourceKind(StrEnum):
    CONVERSATION = "conversation"
    NOTE = "note"
    KNOWLEDGE = "knowledge"
    EXTERNAL = "external"


class SuggestionKind(StrEnum):
    # an automatic change to a confirmed or user-edited field (docs/rules/story-graph.md)
    FIELD = "field"
    DIFFERENCE = "difference"  # new evidence against a confirmed conclusion (规则冲突时…待核对差异)


class SuggestionStatus(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"


class ObjectKind(StrEnum):
    """The allow-list of stored object kinds; labels are chosen from it, never from input."""

    STORY = "story"
    EVENT = "event"
    ENTITY = "entity"
    RELATION = "relation"
    CHANGE = "change"
    SUMMARY = "summary"
    SUGGESTION = "suggestion"


REFERENCE_OWNERS: frozenset[ObjectKind] = frozenset(
    {
        ObjectKind.EVENT,
        ObjectKind.CHANGE,
        ObjectKind.RELATION,
        ObjectKind.ENTITY,
        ObjectKind.SUMMARY,
        ObjectKind.SUGGESTION,
    }
)


def make_id(prefix: str, *parts: str) -> str:
    """A deterministic id: the same result key and local ref always give the same object.

    Determinism makes a retried write transaction produce identical rows and lets the
    replay model predict ids; a model's local ref alone never is an identity, because the
    scope and the result key are part of the hash (ID…不构成身份; docs/rules/reviews.md).
    """
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]
    return f"{prefix}_{digest}"


class Version(BaseModel):
    """Bookkeeping every versioned object carries."""

    # fields a kind keeps for the engine and never answers (its GraphQL type has none of
    # them): a diff neither compares nor shows them
    INTERNAL_FIELDS: ClassVar[frozenset[str]] = frozenset()
    id: str
    scope: str
    seq: int = Field(ge=1)
    recorded_at: datetime
    retracted_at: datetime | None = None
    by: Actor
    why: str = ""
    via_result: str | None = None  # the result that wrote this version, if a result did
    via_concern: str | None = None  # the concern whose answer wrote it (with by=person:<id>)

    @field_validator("recorded_at", "retracted_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else utc(value)


class Story(Version):
    name: str
    description: str = ""


class Event(Version):
    story_id: str | None = None
    title: str
    description: str = ""
    at: datetime
    result_id: str


class Entity(Version):
    name: str
    kind: str = ""
    description: str = ""
    status: EntityStatus = EntityStatus.CANDIDATE
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    user_fields: list[str] = Field(default_factory=list)
    confirmed_fields: list[str] = Field(default_factory=list)

    @property
    def locked_fields(self) -> frozenset[str]:
        """Fields automation may only propose changes to.

        docs/rules/story-graph.md: 自动更新不得改写已确认字段.
        """
        return frozenset(self.user_fields) | frozenset(self.confirmed_fields)


RESPONSIBLE_FOR = "responsible_for"  # person -> the thing they are responsible for
# relation types one holder holds at a time: another holder stated for the same thing is a
# change of holder (the relation's `from_id`), never a second parallel relation
SINGLE_HOLDER_TYPES: frozenset[str] = frozenset({RESPONSIBLE_FOR})


class Relation(Version):
    # which fields a person edited is the engine's bookkeeping for a relation: its GraphQL
    # type does not answer it, so a diff does not show it (an entity's type does)
    INTERNAL_FIELDS: ClassVar[frozenset[str]] = frozenset({"user_fields"})
    from_id: str
    to_id: str
    type: str
    reason: str = ""
    confirmation: Confirmation = Confirmation.SUGGESTED
    removed: bool = False
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    user_fields: list[str] = Field(default_factory=list)

    @property
    def settled_by_person(self) -> bool:
        """Confirmed, rejected, removed or edited by someone: automation only proposes."""
        return (
            self.confirmation is not Confirmation.SUGGESTED
            or self.removed
            or bool(self.user_fields)
        )


class Suggestion(Version):
    result_id: str
    kind: SuggestionKind
    target_kind: ObjectKind
    target_id: str
    field: str
    current_value: str
    proposed_value: str
    reason: str = ""
    status: SuggestionStatus = SuggestionStatus.PENDING
    # the values as a person reads them when they are ids (a holder's name for `from_id`);
    # empty: the value reads as it is
    current_label: str = ""
    proposed_label: str = ""
    # the thing the target is about, as a person reads it (a holder's thing: "支付模块");
    # empty when the target names itself
    subject_label: str = ""
    # the dismissed suggestion this one proposes again: on the same evidence it is
    # recorded dismissed; on new evidence it is pending and cites the old evidence too
    repeat_of: str | None = None


class Change(BaseModel):
    id: str
    scope: str
    result_id: str
    event_id: str
    entity_id: str
    kind: ChangeKind
    note: str = ""
    recorded_at: datetime


class Summary(BaseModel):
    id: str
    scope: str
    result_id: str
    story_id: str | None = None
    text: str
    interval_start: datetime
    interval_end: datetime
    source_ids: list[str] = Field(default_factory=list)
    event_ids: list[str] = Field(default_factory=list)
    entity_ids: list[str] = Field(default_factory=list)
    recorded_at: datetime


class Reference(BaseModel):
    """Points at the original (source id + version + locator); never copies its text."""

    id: str
    scope: str
    result_id: str
    owner_kind: ObjectKind
    owner_id: str
    source_id: str
    source_version: str
    locator: str
    recorded_at: datetime


class Mention(BaseModel):
    """A result's own description of an entity (docs/rules/reviews.md)."""

    result_id: str
    entity_id: str
    name: str
    description: str = ""


class Amendment(BaseModel):
    """A person's edit carried into a result they explicitly chose.

    docs/rules/reviews.md: 人工修改仅更新当前对象与明确选定的结果.
    """

    id: str
    scope: str
    result_id: str
    entity_id: str
    field: str
    value: str
    by: Actor
    why: str = ""
    recorded_at: datetime


class Result(BaseModel):
    """One organising result: recap, feedback and graph all cite its id (docs/rules/reviews.md)."""

    id: str
    scope: str
    key: str
    by: Actor
    recorded_at: datetime
    payload_hash: str
    decisions: list[str] = Field(default_factory=list)
    open_items: list[str] = Field(default_factory=list)
    feedback: str = ""
    notify: bool = False
    warnings: list[str] = Field(default_factory=list)
    # False when its publisher missed input (部分结果不标为完整; docs/rules/reviews.md); `coverage`:
    # the publisher's `CoverageIn` as JSON, None when it stated none
    complete: bool = True
    coverage: str | None = None


# a concern's conversation is a source of its scope, `concern-<concern id>`, written only by
# the loop and skipped by ordinary reviews (docs/rules/loop-standing.md)
CONCERN_SOURCE_PREFIX = "concern-"


class Source(BaseModel):
    id: str
    scope: str
    kind: SourceKind
    title: str = ""
    current_version: str


class SourceVersion(BaseModel):
    """One version of an original; `text` is None when the app could not supply it, or
    withdrew it (deleted or redacted in the app): then `withdrawn_at` says when, and the
    text is gone from the store, not hidden."""

    scope: str
    source_id: str
    version: str
    text: str | None = None
    recorded_at: datetime
    withdrawn_at: datetime | None = None
    withdrawn_by: str | None = None  # the actor label ("user:<id>" / "run:<id>")
    withdrawal_reason: str = ""

    @property
    def available(self) -> bool:
        return self.text is not None
