"""GraphQL output types of the story graph (docs/rules/story-graph.md), built from engine models.

Every versioned object shows its bookkeeping (seq, recordedAt, retractedAt, by, why) so a
client can tell which version it holds and pass `seenVersion` back on an edit.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, TypeVar

import strawberry
from pydantic import BaseModel
from strawberry.dataloader import DataLoader
from strawberry.types import Info

from api.context import Context
from api.definitions.base import Actor, Excerpt, actor, build, versioned
from api.definitions.versioned import Versioned
from engine.story import models as m
from engine.story import views as v
from engine.story.inputs import CoverageIn
from jobs import scopes

# GraphQL enums are the engine's own enums, registered in place (same classes).
strawberry.enum(m.ChangeKind)
strawberry.enum(m.EntityStatus)
strawberry.enum(m.Confirmation)
strawberry.enum(m.SourceKind)
strawberry.enum(m.SuggestionKind)
strawberry.enum(m.SuggestionStatus)
strawberry.enum(m.ObjectKind)
ChangeKind: TypeAlias = m.ChangeKind
EntityStatus: TypeAlias = m.EntityStatus
Confirmation: TypeAlias = m.Confirmation
SourceKind: TypeAlias = m.SourceKind
SuggestionKind: TypeAlias = m.SuggestionKind
SuggestionStatus: TypeAlias = m.SuggestionStatus
ObjectKind: TypeAlias = m.ObjectKind

T = TypeVar("T")
_SIGNALS = "api.definitions.signal_types"
if TYPE_CHECKING:
    from api.definitions.signal_types import Signal, SignalKind, SignalStatus


@strawberry.type
class Story(Versioned):
    name: str
    description: str


@strawberry.type
class Event(Versioned):
    story_id: str | None
    title: str
    description: str
    at: datetime
    result_id: str


def history_loader(
    info: Info[Context, None], kind: type[m.Entity] | type[m.Relation], as_of: datetime | None
) -> DataLoader[tuple[str, str], list[Any]]:
    """The request's loader of `kind` histories as of `as_of` (None: now): one statement for
    all the objects of a page in a scope, however many of them ask (no query per item)."""
    from jobs.story import reads

    def make() -> DataLoader[tuple[str, str], list[Any]]:
        cls: type[Any] = Entity if kind is m.Entity else Relation

        async def load(keys: list[tuple[str, str]]) -> list[list[Any]]:
            found: dict[tuple[str, str], list[Any]] = {}
            for scope in sorted({s for s, _ in keys}):
                ids = sorted({i for s, i in keys if s == scope})
                stored = await reads.histories(
                    info.context.deps, info.context.caller(), kind, scope, ids, as_of=as_of
                )
                for i, versions in stored.items():
                    found[(scope, i)] = [versioned(cls, v, as_of_=as_of) for v in versions]
            return [found[k] for k in keys]

        return DataLoader(load_fn=load)

    return info.context.loader(f"history:{kind.__name__}:{as_of}", make)


HISTORY = "Every version recorded by the asOf this object was read at, oldest first."


@strawberry.type
class Entity(Versioned):
    name: str
    kind: str
    description: str
    status: EntityStatus
    valid_from: datetime | None
    valid_to: datetime | None
    user_fields: list[str]
    confirmed_fields: list[str]
    as_of_: strawberry.Private[datetime | None] = None

    @strawberry.field(description=HISTORY)
    async def history(self, info: Info[Context, None]) -> list[Entity]:
        loader = history_loader(info, m.Entity, self.as_of_)
        found: list[Entity] = await loader.load((self.scope, str(self.id)))
        return found


@strawberry.type
class Relation(Versioned):
    from_id: str
    to_id: str
    type: str
    reason: str
    confirmation: Confirmation
    removed: bool
    valid_from: datetime | None
    valid_to: datetime | None
    as_of_: strawberry.Private[datetime | None] = None

    @strawberry.field(description=HISTORY)
    async def history(self, info: Info[Context, None]) -> list[Relation]:
        loader = history_loader(info, m.Relation, self.as_of_)
        found: list[Relation] = await loader.load((self.scope, str(self.id)))
        return found


@strawberry.type(
    description="A proposed change to a person's or confirmed field, or a pending difference."
)
class Suggestion(Versioned):
    result_id: str
    kind: SuggestionKind
    target_kind: ObjectKind
    target_id: str
    field: str
    current_value: str
    proposed_value: str
    reason: str
    status: SuggestionStatus
    current_label: str = strawberry.field(
        default="", description="The current value as a person reads it (a holder's name)."
    )
    proposed_label: str = strawberry.field(
        default="", description="The proposed value as a person reads it (a holder's name)."
    )
    repeat_of: str | None = strawberry.field(
        default=None,
        description=(
            "The dismissed suggestion this one proposes again: on the same evidence it is "
            "recorded dismissed (not in the inbox); on new evidence it is back, citing both."
        ),
    )


@strawberry.type(description="How an event touched an entity.")
class Change:
    id: strawberry.ID
    result_id: str
    event_id: str
    entity_id: str
    kind: ChangeKind
    note: str
    recorded_at: datetime


@strawberry.type(description="A stage summary over an interval and a source scope.")
class Summary:
    id: strawberry.ID
    result_id: str
    story_id: str | None
    text: str
    interval_start: datetime
    interval_end: datetime
    source_ids: list[str]
    event_ids: list[str]
    entity_ids: list[str]
    recorded_at: datetime


def excerpt_loader(info: Info[Context, None], scope: str) -> DataLoader[str, v.Excerpt]:
    """One read for all the excerpts a response asks for in one scope (no query per item)."""
    from jobs.story import reads

    async def load(ids: list[str]) -> list[v.Excerpt]:
        found = await reads.reference_excerpts(info.context.deps, info.context.caller(), scope, ids)
        return [found[i] for i in ids]

    return DataLoader(load_fn=load)


@strawberry.type(
    description="Points at the original (source, version, locator); never copies its text."
)
class Reference:
    id: strawberry.ID
    scope: str
    result_id: str
    owner_kind: ObjectKind
    owner_id: str
    source_id: str
    source_version: str
    locator: str
    recorded_at: datetime

    @strawberry.field(description="The cited text from the exact version (never today's text).")
    async def excerpt(self, info: Info[Context, None]) -> Excerpt:
        loader = info.context.loader(
            f"excerpts:{self.scope}", lambda: excerpt_loader(info, self.scope)
        )
        return build(Excerpt, await loader.load(str(self.id)))


@strawberry.type
class Source:
    id: strawberry.ID
    scope: str
    kind: SourceKind
    title: str
    current_version: str


@strawberry.type(description="A source version as stored: whether its text is here, or withdrawn.")
class SourceVersion:
    scope: str
    source_id: str
    version: str
    recorded_at: datetime
    available: bool
    withdrawn_at: datetime | None
    withdrawal_reason: str


def source_version_type(model: m.SourceVersion) -> SourceVersion:
    return build(SourceVersion, model, available=model.available)


@strawberry.type(
    description="A range of one source version a review read or missed (docs/rules/reviews.md): "
    "end "
    "null means the whole version; reason (missed ranges only): withdrawn, unrecoverable, "
    "or gone (withdrawn after the run collected it)."
)
class SourceRange:
    source_id: str
    version: str
    start: int
    end: int | None
    reason: str | None = None


@strawberry.type(description="What a result's publisher read (covered) and could not (missed).")
class ResultCoverage:
    covered: list[SourceRange]
    missed: list[SourceRange]

    @classmethod
    def from_json(cls, doc: str | None) -> ResultCoverage | None:
        if doc is None:
            return None
        stated = CoverageIn.model_validate_json(doc)
        return cls(
            covered=[SourceRange(**r.model_dump()) for r in stated.covered],
            missed=[SourceRange(**r.model_dump()) for r in stated.missed],
        )


@strawberry.type(description="One organising result: recap, feedback and graph cite its id.")
class Result:
    id: strawberry.ID
    scope: str
    key: str
    by: Actor
    recorded_at: datetime
    decisions: list[str]
    open_items: list[str]
    feedback: str
    notify: bool
    warnings: list[str]
    complete: bool = strawberry.field(
        default=True,
        description="False when its publisher missed input (部分结果不标为完整; "
        "docs/rules/reviews.md); "
        "coverage lists what was read and what was missed, with why.",
    )
    coverage: ResultCoverage | None = None


@strawberry.type
class EntityMention:
    entity_id: str
    name: str
    description: str
    amended_fields: list[str]


@strawberry.type(description="result(id): recap, feedback and graph delta of one result.")
class ResultView:
    result: Result
    events: list[Event]
    changes: list[Change]
    entities: list[Entity]
    relations: list[Relation]
    summaries: list[Summary]
    suggestions: list[Suggestion]
    references: list[Reference]
    mentions: list[EntityMention]


@strawberry.type
class StoryGraph:
    scope: str
    as_of: datetime
    valid_at: datetime | None
    from_: datetime | None = strawberry.field(name="from")
    to: datetime | None
    story_id: str | None
    stories: list[Story]
    events: list[Event]
    entities: list[Entity]
    relations: list[Relation]
    changes: list[Change]
    summaries: list[Summary]
    references: list[Reference]
    suggestions: list[Suggestion]

    @strawberry.field(
        description="False when nothing is recorded in the scope (no story data, source, "
        "concern or watch): the empty answer then means an unknown scope, perhaps a mistyped "
        "one, not an empty slice of a known one. No read falls back to another scope."
    )
    async def scope_known(self, info: Info[Context, None]) -> bool:
        return await scopes.scope_known(info.context.deps, info.context.caller(), self.scope)

    @strawberry.field(description="The signals believed at asOf, of one kind/status.")
    async def signals(
        self,
        info: Info[Context, None],
        kind: Annotated[SignalKind, strawberry.lazy(_SIGNALS)] | None = None,
        status: Annotated[SignalStatus, strawberry.lazy(_SIGNALS)] | None = None,
        first: int = 50,
    ) -> list[Annotated[Signal, strawberry.lazy(_SIGNALS)]]:
        from api.definitions.signal import story_graph_signals

        return await story_graph_signals(info, self.scope, self.as_of, kind, status, first)


@strawberry.type(description="entity(id, asOf): the version believed then, and every version.")
class EntityView:
    entity: Entity
    history: list[Entity]
    pending_suggestions: list[Suggestion]


def result_type(r: m.Result) -> Result:
    return build(
        Result,
        r,
        id=strawberry.ID(r.id),
        by=actor(r.by),
        coverage=ResultCoverage.from_json(r.coverage),
    )


def plain(cls: type[T], model: BaseModel) -> T:
    return build(cls, model, id=strawberry.ID(model.id))  # type: ignore[attr-defined]


def story_graph_type(g: v.StoryGraph) -> StoryGraph:
    return StoryGraph(
        scope=g.scope,
        as_of=g.as_of,
        valid_at=g.valid_at,
        from_=g.from_,
        to=g.to,
        story_id=g.story_id,
        stories=[versioned(Story, s) for s in g.stories],
        events=[versioned(Event, e) for e in g.events],
        entities=[versioned(Entity, e, as_of_=g.as_of) for e in g.entities],
        relations=[versioned(Relation, r, as_of_=g.as_of) for r in g.relations],
        changes=[plain(Change, c) for c in g.changes],
        summaries=[plain(Summary, s) for s in g.summaries],
        references=[plain(Reference, r) for r in g.references],
        suggestions=[versioned(Suggestion, s) for s in g.suggestions],
    )


def entity_view_type(view: v.EntityView) -> EntityView:
    return EntityView(
        entity=versioned(Entity, view.entity),
        history=[versioned(Entity, e) for e in view.history],
        pending_suggestions=[versioned(Suggestion, s) for s in view.pending_suggestions],
    )


def result_view_type(view: v.ResultView) -> ResultView:
    return ResultView(
        result=result_type(view.result),
        events=[versioned(Event, e) for e in view.events],
        changes=[plain(Change, c) for c in view.changes],
        entities=[versioned(Entity, e) for e in view.entities],
        relations=[versioned(Relation, r) for r in view.relations],
        summaries=[plain(Summary, s) for s in view.summaries],
        suggestions=[versioned(Suggestion, s) for s in view.suggestions],
        references=[plain(Reference, r) for r in view.references],
        mentions=[
            EntityMention(
                entity_id=mv.mention.entity_id,
                name=mv.amended.get("name", mv.mention.name),
                description=mv.amended.get("description", mv.mention.description),
                amended_fields=sorted(mv.amended),
            )
            for mv in view.mentions
        ],
    )
