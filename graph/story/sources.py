"""A scope's sources (docs/rules/story-graph.md): the app's versions, their withdrawal, and the
excerpts references cite, always of exactly the cited version (never today's text in its place)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.clock import utc
from engine.errors import NotFound
from engine.scope import check_scope
from engine.story.inputs import SourceInput
from engine.story.models import Actor, Reference, Source, SourceVersion
from engine.story.sources import decide_source_upsert, decide_withdrawal, excerpt
from engine.story.views import Excerpt
from graph.story.codec import from_props, to_props
from graph.story.passages import remove_passages, write_passages
from graph.story.store import StoryStore

AlsoWrite = Callable[[AsyncManagedTransaction], Awaitable[object]]


class StorySources(StoryStore):
    async def upsert_source(
        self, inp: SourceInput, *, now: datetime, also: AlsoWrite | None = None
    ) -> Source:
        """upsertSource: record the app's version(s) of a source (docs/rules/story-graph.md); `also`
        writes what came with it (its speakers' person bindings) in the same transaction."""
        now = utc(now)

        async def work(tx: AsyncManagedTransaction) -> Source:
            rows = await self.rows(tx, "story/source_get", scope=inp.scope, id=inp.id)
            existing = from_props(Source, rows[0]["s"]) if rows else None
            versions = {
                v.version: v
                for v in (
                    from_props(SourceVersion, p) for p in (rows[0]["versions"] if rows else [])
                )
            }
            source, new = decide_source_upsert(inp, existing, versions, now)
            await self.rows(
                tx,
                "story/write_source",
                source=to_props(source),
                versions=[to_props(v) for v in new],
            )
            await write_passages(tx, new)  # the versions' lines, searchable
            if also is not None:
                await also(tx)
            return source

        return await self._write(work)

    async def withdraw_source(
        self,
        scope: str,
        source_id: str,
        version: str,
        *,
        reason: str,
        by: Actor,
        now: datetime,
    ) -> SourceVersion:
        """withdrawSource: the app deleted or redacted a version; its text leaves Neo4j.

        References to it then read as unavailable (never another version's text); the
        objects citing it stay. An unknown version is NOT_FOUND; a repeat writes nothing."""
        check_scope(scope)
        now = utc(now)

        async def work(tx: AsyncManagedTransaction) -> SourceVersion:
            rows = await self.rows(
                tx, "story/source_version_get", scope=scope, source_id=source_id, version=version
            )
            stored = from_props(SourceVersion, rows[0]["v"]) if rows else None
            withdrawn = decide_withdrawal(
                stored, source_id=source_id, version=version, reason=reason, now=now, by=by
            )
            if withdrawn is None:
                assert stored is not None
                return stored
            props = to_props(withdrawn)
            written = await self.rows(
                tx,
                "story/write_source_withdrawal",
                scope=scope,
                source_id=source_id,
                version=version,
                withdrawn_at=props["withdrawn_at"],
                withdrawn_by=props["withdrawn_by"],
                withdrawal_reason=props["withdrawal_reason"],
            )
            await remove_passages(tx, scope, source_id, version)  # their text leaves too
            return from_props(SourceVersion, written[0]["v"])

        return await self._write(work)

    async def source_excerpt(
        self, scope: str, source_id: str, version: str, locator: str = "chars:0-2000"
    ) -> Excerpt:
        """The text of exactly that version, or a warning that it cannot be recovered."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> Excerpt:
            rows = await self.rows(
                tx, "story/source_version_get", scope=scope, source_id=source_id, version=version
            )
            stored = from_props(SourceVersion, rows[0]["v"]) if rows else None
            return excerpt(source_id, version, locator, stored, self._locale)

        return await self.read(work)

    async def reference_excerpt(self, scope: str, reference_id: str) -> Excerpt:
        """`Reference.excerpt`: reads the cited version, never today's text in its place."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> Excerpt:
            rows = await self.rows(tx, "story/reference_get", scope=scope, id=reference_id)
            if not rows:
                raise NotFound("no such reference in this scope", id=reference_id, scope=scope)
            ref = from_props(Reference, rows[0]["r"])
            stored = from_props(SourceVersion, rows[0]["v"]) if rows[0]["v"] else None
            return excerpt(ref.source_id, ref.source_version, ref.locator, stored, self._locale)

        return await self.read(work)

    async def reference_excerpts(self, scope: str, reference_ids: list[str]) -> dict[str, Excerpt]:
        """Excerpts of many references of one scope in one read (missing ids are absent)."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> dict[str, Excerpt]:
            out: dict[str, Excerpt] = {}
            for row in await self.rows(
                tx, "story/reference_excerpts", scope=scope, ids=reference_ids
            ):
                ref = from_props(Reference, row["r"])
                stored = from_props(SourceVersion, row["v"]) if row["v"] else None
                out[ref.id] = excerpt(
                    ref.source_id, ref.source_version, ref.locator, stored, self._locale
                )
            return out

        return await self.read(work)
