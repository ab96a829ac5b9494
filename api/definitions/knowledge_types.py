"""GraphQL types of save-to-knowledge and continue-the-discussion
(docs/rules/story-graph.md#views-knowledge-and-discussion)."""

from __future__ import annotations

from datetime import datetime
from typing import TypeAlias

import strawberry

from api.definitions.base import Excerpt, build
from api.definitions.story_types import ObjectKind, Source, SourceKind
from engine.story import discussion as d
from engine.story import knowledge as k
from engine.story.models import Source as SourceModel
from engine.story.models import SourceVersion
from engine.story.previews import ObjectRef
from engine.story.sources import warning

# GraphQL enums are the engine's own enums, registered in place (same classes).
strawberry.enum(k.EntryAction)
EntryAction: TypeAlias = k.EntryAction


@strawberry.input(description="A selected graph object; `entry` names a local entry to supplement.")
class ObjectRefInput:
    kind: ObjectKind
    id: strawberry.ID
    entry: str | None = None


@strawberry.type
class SelectedObject:
    kind: ObjectKind
    id: strawberry.ID


@strawberry.type(description="Where to open an existing entry: knowledgeEntry(scope, id, version).")
class EntryLink:
    scope: str
    source_id: str
    version: str


@strawberry.type(description="An entry a confirm would create or supplement (or leave as it is).")
class KnowledgeEntryPlan:
    source_id: str
    title: str
    action: EntryAction
    base_version: str | None
    version: str | None
    text: str
    added: list[str]
    objects: list[SelectedObject]
    link: EntryLink | None
    warnings: list[str]


@strawberry.type(description="An external source the selection cites: read-only, never written.")
class ReadOnlyReference:
    owner_id: str
    source_id: str
    kind: SourceKind
    version: str
    locator: str


@strawberry.type(
    description="What confirmSaveToKnowledge(previewId) would write; nothing is written yet."
)
class SaveToKnowledgePreview:
    preview_id: strawberry.ID
    scope: str
    as_of: datetime | None
    entries: list[KnowledgeEntryPlan]
    read_only: list[ReadOnlyReference]


@strawberry.type
class SaveToKnowledgeOutcome:
    repeat: bool = strawberry.field(description="true when this preview was confirmed before")
    entries: list[Source]


@strawberry.type
class ContextObject:
    kind: ObjectKind
    id: strawberry.ID
    seq: int | None
    label: str
    text: str


@strawberry.type
class ContextExcerpt:
    owner_id: str
    excerpt: Excerpt


@strawberry.type(
    description="The exact context a new conversation would start from; nothing is written yet."
)
class ContinueDiscussionPreview:
    preview_id: strawberry.ID
    scope: str
    as_of: datetime | None
    title: str
    objects: list[ContextObject]
    excerpts: list[ContextExcerpt]
    warnings: list[str]
    text: str


@strawberry.type
class ContinueDiscussionOutcome:
    repeat: bool = strawberry.field(description="true when this preview was confirmed before")
    conversation: Source


@strawberry.type(description="A local entry (any source of the scope) and the text of one version.")
class KnowledgeEntry:
    source: Source
    version: str
    available: bool
    text: str | None
    warning: str | None


def source_type(s: SourceModel) -> Source:
    return build(Source, s, id=strawberry.ID(s.id))


def _selected(refs: list[ObjectRef]) -> list[SelectedObject]:
    return [SelectedObject(kind=r.kind, id=strawberry.ID(r.id)) for r in refs]


def save_preview_type(preview_id: str, plan: k.SavePlan) -> SaveToKnowledgePreview:
    return SaveToKnowledgePreview(
        preview_id=strawberry.ID(preview_id),
        scope=plan.scope,
        as_of=plan.as_of,
        entries=[
            build(
                KnowledgeEntryPlan,
                e,
                objects=_selected(e.objects),
                link=build(EntryLink, e.link) if e.link else None,
            )
            for e in plan.entries
        ],
        read_only=[build(ReadOnlyReference, r) for r in plan.read_only],
    )


def discussion_preview_type(preview_id: str, ctx: d.DiscussionContext) -> ContinueDiscussionPreview:
    return ContinueDiscussionPreview(
        preview_id=strawberry.ID(preview_id),
        scope=ctx.scope,
        as_of=ctx.as_of,
        title=ctx.title,
        objects=[build(ContextObject, o, id=strawberry.ID(o.id)) for o in ctx.objects],
        excerpts=[
            ContextExcerpt(owner_id=c.owner_id, excerpt=build(Excerpt, c.excerpt))
            for c in ctx.excerpts
        ],
        warnings=ctx.warnings,
        text=ctx.text,
    )


def entry_type(
    source: SourceModel, version: str, stored: SourceVersion | None, locale: str = "zh"
) -> KnowledgeEntry:
    available = stored is not None and stored.text is not None
    why = "withdrawn" if stored is not None and stored.withdrawn_at is not None else "unrecoverable"
    return KnowledgeEntry(
        source=source_type(source),
        version=version,
        available=available,
        text=stored.text if stored is not None else None,
        warning=None if available else warning(why, source.id, version, locale),
    )
