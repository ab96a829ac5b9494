"""The base of the story repository's parts (`graph/story/repository.py` says how they
write): versioned kinds read and written by their named queries, and the write transaction
that maps a lost uniqueness race to CONFLICT."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction, Record
from neo4j.exceptions import ConstraintError

from engine.clock import FOREVER
from engine.errors import Conflict, NotFound
from engine.story.models import ObjectKind, Version
from graph.base import Store
from graph.queries import Queries
from graph.story.codec import from_props, version_row
from graph.story.kinds import VERSIONED

W = TypeVar("W")
log = logging.getLogger("storygraph.graph.story")


class StoryStore(Store):
    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        named: Queries | None = None,
        locale: str = "zh",
    ) -> None:
        super().__init__(driver, database, named=named)
        self._locale = locale  # of the warnings an unavailable excerpt carries

    async def _versions(
        self, tx: AsyncManagedTransaction, kind: ObjectKind, scope: str, ids: Iterable[str]
    ) -> list[Version]:
        q = VERSIONED[kind]
        rows = await self._rows_for(tx, q.versions, list(ids), scope=scope)
        return [from_props(q.model, r["v"]) for r in rows]

    async def _rows_for(
        self, tx: AsyncManagedTransaction, key: str, ids: list[str], /, **params: Any
    ) -> list[Record]:
        """The rows of a read keyed by `ids`; no round trip when there are none (a publish
        of new objects names none)."""
        return await self.rows(tx, key, ids=ids, **params) if ids else []

    async def _current(
        self, tx: AsyncManagedTransaction, kind: ObjectKind, scope: str, object_id: str
    ) -> Version:
        for v in await self._versions(tx, kind, scope, [object_id]):
            if v.retracted_at is None:
                return v
        raise NotFound(f"no {kind.value} {object_id} in scope {scope}", id=object_id, scope=scope)

    async def _write_versions(
        self, tx: AsyncManagedTransaction, kind: ObjectKind, versions: list[Any]
    ) -> None:
        if not versions:
            return
        rows = await self.rows(
            tx,
            VERSIONED[kind].write,
            rows=[version_row(v) for v in versions],
            forever=FOREVER,
        )
        if rows and rows[0]["orphaned"]:
            raise Conflict(f"a {kind.value} changed concurrently; nothing was written")

    async def _write(self, work: Callable[[AsyncManagedTransaction], Awaitable[W]]) -> W:
        """One write transaction; a uniqueness clash with a concurrent writer (the same
        version seq recorded twice) is a CONFLICT: this writer's transaction wrote nothing."""
        try:
            return await self.write(work)
        except Conflict as exc:
            if not isinstance(exc.__cause__, ConstraintError):
                raise
            # Neo4j's message names labels, properties and internal node ids: logged
            # here, never returned to the client
            log.info(
                "write lost a uniqueness race", extra={"fields": {"error": exc.__cause__.message}}
            )
            raise Conflict("changed concurrently; nothing was written") from None
