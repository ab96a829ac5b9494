"""Save to knowledge (seed 004 L8) and continue the discussion (L9): preview, then confirm.

Previews write nothing; their `previewId` is what the person saw. A confirm writes exactly
that, or is CONFLICT when the graph changed since (preview again). Only local knowledge
entries are ever written; external sources stay read-only (FORBIDDEN). A continued
discussion is a new conversation Source: what is said there reaches the graph only through
a later review, never as confirmed knowledge.
"""

from __future__ import annotations

from datetime import UTC, datetime

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
from api.definitions.story import announce, editor, reader
from engine.story import inputs as engine_inputs
from engine.story.previews import PreviewKind, PreviewRequest, PreviewToken, decode
from graph.story.discussion import DiscussionRepository
from graph.story.knowledge import KnowledgeRepository


def _request(
    kind: PreviewKind,
    scope: str,
    objects: list[ObjectRefInput],
    result_id: strawberry.ID | None,
    as_of: datetime | None,
    title: str = "",
) -> PreviewRequest:
    data = {
        "kind": kind.value,
        "scope": scope,
        "title": title,
        "as_of": as_of,
        "result_id": str(result_id) if result_id is not None else None,
        "objects": [{"kind": o.kind.value, "id": str(o.id), "entry": o.entry} for o in objects],
    }
    return engine_inputs.parse_input(PreviewRequest, data).checked()


def _token(preview_id: strawberry.ID) -> PreviewToken:
    return decode(str(preview_id), datetime.now(UTC))


@strawberry.type
class Query:
    @strawberry.field(
        description="Open a local entry: a source of the scope at one version (default current)."
    )
    async def knowledge_entry(
        self, info: Info[Context, None], scope: str, id: strawberry.ID, version: str | None = None
    ) -> KnowledgeEntry:
        reader(info, scope)
        repo = KnowledgeRepository(info.context.driver, info.context.database)
        source, stored = await repo.entry(scope, str(id), version)
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
        reader(info, scope)
        request = _request(PreviewKind.KNOWLEDGE, scope, objects or [], result_id, as_of)
        repo = KnowledgeRepository(info.context.driver, info.context.database)
        return save_preview_type(*await repo.preview_save(request))

    @strawberry.mutation(
        description="Write exactly what the preview listed (changed since: CONFLICT)."
    )
    async def confirm_save_to_knowledge(
        self, info: Info[Context, None], preview_id: strawberry.ID, user_id: str | None = None
    ) -> SaveToKnowledgeOutcome:
        token = _token(preview_id)
        by = editor(info, token.request.scope, user_id)
        repo = KnowledgeRepository(info.context.driver, info.context.database)
        outcome = await repo.confirm_save(token, by=by)
        if not outcome.repeat and outcome.entries:
            await announce(info, outcome.scope, "source", [s.id for s in outcome.entries], by)
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
        reader(info, scope)
        request = _request(PreviewKind.DISCUSSION, scope, objects or [], result_id, as_of, title)
        repo = DiscussionRepository(
            info.context.driver, info.context.database, locale=info.context.settings.locale
        )
        return discussion_preview_type(*await repo.preview(request))

    @strawberry.mutation(
        description="Start the conversation from the previewed context (a new Source)."
    )
    async def confirm_continue_discussion(
        self, info: Info[Context, None], preview_id: strawberry.ID, user_id: str | None = None
    ) -> ContinueDiscussionOutcome:
        token = _token(preview_id)
        by = editor(info, token.request.scope, user_id)
        repo = DiscussionRepository(
            info.context.driver, info.context.database, locale=info.context.settings.locale
        )
        outcome = await repo.confirm(token)
        if not outcome.repeat:
            await announce(info, token.request.scope, "source", [outcome.conversation.id], by)
        return ContinueDiscussionOutcome(
            repeat=outcome.repeat, conversation=source_type(outcome.conversation)
        )
