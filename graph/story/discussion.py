"""Continue the discussion (docs/rules/story-graph.md) against Neo4j: preview reads, confirm
writes one conversation Source — and nothing else in the graph
(新内容在后续整理时纳入，不立即作为已确认知识)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.errors import InvalidInput
from engine.story.discussion import DiscussionContext, build_context, conversation
from engine.story.models import Source
from engine.story.previews import (
    PreviewKind,
    PreviewRequest,
    PreviewToken,
    confirm_decision,
    encode,
    fingerprint,
)
from graph.base import Store
from graph.story.codec import from_props, to_props
from graph.story.knowledge import present_writes
from graph.story.passages import write_passages
from graph.story.selection import load_selection


@dataclass(frozen=True)
class DiscussionOutcome:
    repeat: bool  # a retried confirm: the conversation exists already, nothing written now
    conversation: Source


class DiscussionRepository(Store):
    """Continue a discussion; `now` (the use case's one clock reading) is passed to each call."""

    def __init__(self, driver: AsyncDriver, database: str, *, locale: str = "zh") -> None:
        super().__init__(driver, database)
        self._locale = locale  # of the warnings for cited versions that cannot be shown

    async def _context(
        self, tx: AsyncManagedTransaction, request: PreviewRequest, now: datetime
    ) -> DiscussionContext:
        at = request.as_of or now
        selection = await load_selection(tx, request, at)
        return build_context(
            selection, as_of=request.as_of, title=request.title, locale=self._locale
        )

    async def preview(
        self, request: PreviewRequest, *, now: datetime
    ) -> tuple[str, DiscussionContext]:
        """previewContinueDiscussion: the exact context, read only."""
        request = request.checked()
        if request.kind is not PreviewKind.DISCUSSION:
            raise InvalidInput("not a continue-discussion request")

        async def work(tx: AsyncManagedTransaction) -> DiscussionContext:
            return await self._context(tx, request, now)

        ctx = await self.read(work)
        fp = fingerprint(ctx)
        _, _, write = conversation(ctx, fp, now)
        token = PreviewToken(request=request, made_at=now, fingerprint=fp, writes=[write])
        return encode(token), ctx

    async def confirm(self, token: PreviewToken, *, now: datetime) -> DiscussionOutcome:
        """confirmContinueDiscussion: the conversation Source starting from that context."""
        if token.request.kind is not PreviewKind.DISCUSSION:
            raise InvalidInput("this preview is not a continued discussion")
        scope = token.request.scope

        async def work(tx: AsyncManagedTransaction) -> DiscussionOutcome:
            present = await present_writes(tx, scope, token.writes)
            ctx = await self._context(tx, token.request, now)
            write_now = confirm_decision(token, fingerprint(ctx), present)
            source, first, _ = conversation(ctx, token.fingerprint, now)
            if write_now:
                await self.rows(
                    tx, "story/write_source", source=to_props(source), versions=[to_props(first)]
                )
                await write_passages(tx, [first])  # the conversation, searchable
                return DiscussionOutcome(repeat=False, conversation=source)
            found = await self.rows(tx, "knowledge/sources", scope=scope, ids=[source.id])
            stored = [from_props(Source, r["s"]) for r in found]
            return DiscussionOutcome(repeat=True, conversation=stored[0])

        return await self.write(work)
