"""Save to knowledge and continue the discussion: preview, then confirm
(docs/rules/story-graph.md#views-knowledge-and-discussion).

Previews write nothing; their `previewId` is what the person saw. A confirm writes exactly
that, or is CONFLICT when the graph changed since (preview again). Only local knowledge
entries are ever written; external sources stay read-only (FORBIDDEN). A continued
discussion is a new conversation Source: what is said there reaches the graph only through
a later review, never as confirmed knowledge.
"""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.knowledge_types import (
    ContinueDiscussionOutcome,
    ContinueDiscussionPreview,
    KnowledgeEntry,
    ObjectRefInput,
    SaveToKnowledgeOutcome,
    SaveToKnowledgePreview,
    discussion_preview_type,
    entry_type,
    save_preview_type,
    source_type,
)
from jobs.story import knowledge, reads


def _objects(objects: list[ObjectRefInput] | None) -> list[dict[str, str | None]]:
    return [{"kind": o.kind.value, "id": str(o.id), "entry": o.entry} for o in objects or []]


def _id(value: strawberry.ID | None) -> str | None:
    return str(value) if value is not None else None


@strawberry.type
class Query:
    @strawberry.field(
        description="Open a local entry: a source of the scope at one version (default current)."
    )
    async def knowledge_entry(
        self, info: Info[Context, None], scope: str, id: strawberry.ID, version: str | None = None
    ) -> KnowledgeEntry:
        source, stored = await reads.knowledge_entry(
            info.context.deps, info.context.caller(), scope, str(id), version
        )
        return entry_type(
            source, version or source.current_version, stored, info.context.settings.locale
        )


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="List the local entries a save would create or supplement; writes nothing."
    )
    async def preview_save_to_knowledge(
        self,
        info: Info[Context, None],
        scope: str,
        objects: list[ObjectRefInput] | None = None,
        result_id: strawberry.ID | None = None,
        as_of: datetime | None = None,
    ) -> SaveToKnowledgePreview:
        preview = await knowledge.preview_save(
            info.context.deps,
            info.context.caller(),
            scope,
            _objects(objects),
            result_id=_id(result_id),
            as_of=as_of,
        )
        return save_preview_type(*preview)

    @strawberry.mutation(
        description="Write exactly what the preview listed (changed since: CONFLICT)."
    )
    async def confirm_save_to_knowledge(
        self, info: Info[Context, None], preview_id: strawberry.ID, user_id: str | None = None
    ) -> SaveToKnowledgeOutcome:
        outcome = await knowledge.confirm_save(
            info.context.deps, info.context.caller(), str(preview_id), user_id
        )
        return SaveToKnowledgeOutcome(
            repeat=outcome.repeat, entries=[source_type(s) for s in outcome.entries]
        )

    @strawberry.mutation(
        description="The exact context a new conversation would start from; writes nothing."
    )
    async def preview_continue_discussion(
        self,
        info: Info[Context, None],
        scope: str,
        objects: list[ObjectRefInput] | None = None,
        result_id: strawberry.ID | None = None,
        as_of: datetime | None = None,
        title: str = "",
    ) -> ContinueDiscussionPreview:
        preview = await knowledge.preview_discussion(
            info.context.deps,
            info.context.caller(),
            scope,
            _objects(objects),
            result_id=_id(result_id),
            as_of=as_of,
            title=title,
        )
        return discussion_preview_type(*preview)

    @strawberry.mutation(
        description="Start the conversation from the previewed context (a new Source)."
    )
    async def confirm_continue_discussion(
        self, info: Info[Context, None], preview_id: strawberry.ID, user_id: str | None = None
    ) -> ContinueDiscussionOutcome:
        outcome = await knowledge.confirm_discussion(
            info.context.deps, info.context.caller(), str(preview_id), user_id
        )
        return ContinueDiscussionOutcome(
            repeat=outcome.repeat, conversation=source_type(outcome.conversation)
        )
