"""Save to knowledge (docs/rules/reviews.md) against Neo4j: preview reads, confirm writes.

`preview_save` runs in a read transaction and writes nothing; its id is a token
(engine.story.previews). `confirm_save` recomputes the preview inside one write transaction
and writes the planned entry versions only if it is unchanged (else CONFLICT, nothing
written); a retried confirm whose versions are all there already is a repeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.errors import Conflict, InvalidInput, NotFound
from engine.story.knowledge import EntryAction, SavePlan, plan_save
from engine.story.models import Actor, Source, SourceVersion
from engine.story.previews import (
    PreviewKind,
    PreviewRequest,
    PreviewToken,
    Write,
    confirm_decision,
    encode,
    fingerprint,
)
from graph.base import Store, rows
from graph.story.codec import from_props
from graph.story.passages import entry_version, write_passages
from graph.story.selection import load_selection


@dataclass(frozen=True)
class SaveOutcome:
    scope: str
    repeat: bool  # a retried confirm: everything was written before, nothing now
    entries: list[Source]


async def present_writes(
    tx: AsyncManagedTransaction, scope: str, writes: list[Write]
) -> set[Write]:
    found = await rows(
        tx,
        "knowledge/source_versions",
        scope=scope,
        keys=[{"source_id": w.source_id, "version": w.version} for w in writes],
    )
    return {Write(source_id=r["v"]["source_id"], version=r["v"]["version"]) for r in found}


class KnowledgeRepository(Store):
    """Save to knowledge; `now` (the use case's one clock reading) is passed to each call."""

    async def _plan(
        self, tx: AsyncManagedTransaction, request: PreviewRequest, now: datetime
    ) -> SavePlan:
        at = request.as_of or now
        return plan_save(await load_selection(tx, request, at), as_of=request.as_of)

    async def preview_save(self, request: PreviewRequest, *, now: datetime) -> tuple[str, SavePlan]:
        """previewSaveToKnowledge: the entries a confirm would create or supplement."""
        request = request.checked()
        if request.kind is not PreviewKind.KNOWLEDGE:
            raise InvalidInput("not a save-to-knowledge request")

        async def work(tx: AsyncManagedTransaction) -> SavePlan:
            return await self._plan(tx, request, now)

        plan = await self.read(work)
        token = PreviewToken(
            request=request,
            made_at=now,
            fingerprint=fingerprint(plan),
            writes=plan.writes(),
        )
        return encode(token), plan

    async def confirm_save(self, token: PreviewToken, *, by: Actor, now: datetime) -> SaveOutcome:
        """confirmSaveToKnowledge: write exactly the previewed entry versions."""
        if token.request.kind is not PreviewKind.KNOWLEDGE:
            raise InvalidInput("this preview is not a save to knowledge")
        scope = token.request.scope

        async def work(tx: AsyncManagedTransaction) -> tuple[bool, list[Source]]:
            present = await present_writes(tx, scope, token.writes)
            plan = await self._plan(tx, token.request, now)
            if not confirm_decision(token, fingerprint(plan), present):
                return True, await self._sources(tx, scope, [w.source_id for w in token.writes])
            rows: list[dict[str, Any]] = [
                {
                    "scope": scope,
                    "source_id": e.source_id,
                    "title": e.title,
                    "base_version": e.base_version,
                    "version": e.version,
                    "text": e.text,
                    "recorded_at": now,
                    "by": by.label(),
                    "origin": [f"{o.kind.value}:{o.id}" for o in e.objects],
                }
                for e in plan.entries
                if e.action is not EntryAction.UNCHANGED
            ]
            if rows:
                written = await self.rows(tx, "knowledge/write_entries", rows=rows)
                if len(written) != 1 or written[0]["written"] != len(rows):
                    raise Conflict("an entry changed while saving; nothing was written")
                await write_passages(tx, [entry_version(r) for r in rows])  #
            return False, await self._sources(tx, scope, [r["source_id"] for r in rows])

        repeat, sources = await self.write(work)
        return SaveOutcome(scope=scope, repeat=repeat, entries=sources)

    async def _sources(
        self, tx: AsyncManagedTransaction, scope: str, ids: list[str]
    ) -> list[Source]:
        found = await self.rows(tx, "knowledge/sources", scope=scope, ids=ids)
        return [from_props(Source, r["s"]) for r in found]

    async def entry(
        self, scope: str, source_id: str, version: str | None = None
    ) -> tuple[Source, SourceVersion | None]:
        """knowledgeEntry: a source of the scope and one version (default its current one),
        None when that version's text is not recoverable — the "open" link of a preview
        (已有条目提供打开入口)."""

        async def work(tx: AsyncManagedTransaction) -> tuple[Source, SourceVersion | None]:
            found = await self._sources(tx, scope, [source_id])
            if not found:
                raise NotFound("no such entry in this scope", id=source_id, scope=scope)
            wanted = version or found[0].current_version
            versions = await self.rows(
                tx,
                "knowledge/source_versions",
                scope=scope,
                keys=[{"source_id": source_id, "version": wanted}],
            )
            stored = from_props(SourceVersion, versions[0]["v"]) if versions else None
            return found[0], stored

        return await self.read(work)
