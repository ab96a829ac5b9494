"""Hybrid search's vectors in Neo4j: the `search_vector` index, the texts
still without a vector, the vectors written back, and the embed runs' progress records.

A vector is stored on the searchable node itself (`n.embedding`, label `Embedded`, which the
vector index covers): version nodes never change, so neither does their vector. The index is
created by the first embed with the configured dimension (a migration cannot know it) and
the model and dimension are recorded (`SearchVectors`), so another one is refused
(engine/search/vectors.py `check_vectors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.clock import utc
from engine.llm.ledger import LedgerEntry
from engine.search.vectors import VectorState
from graph.base import Store
from graph.llm.ledger import call_row
from graph.scopes import ScopeStore
from graph.temporal import from_neo4j


@dataclass(frozen=True)
class Missing:
    node_id: str  # elementId
    fields: dict[str, Any]


@dataclass(frozen=True)
class EmbedRun:
    id: str
    scope: str
    by: str
    status: str  # running, completed, failed
    embedded: int
    missing: int
    cut: int  # texts longer than the model takes, embedded up to a sentence boundary
    started_at: datetime
    finished_at: datetime | None
    error: str | None


class VectorStore(Store):
    async def state(self) -> VectorState:
        row = (await self.query("search/vector_state"))[0]
        return VectorState(model=row["model"], dimensions=row["dimensions"])

    async def index_ready(self) -> bool:
        found = await self.query("search/vector_index_dimensions")
        return bool(found) and found[0]["state"] == "ONLINE"

    async def create_index(self, model: str, dimensions: int, now: datetime) -> VectorState:
        """The index (its own schema transaction) and the record of its model; both
        idempotent, so two workers doing it at once agree."""
        await self.query("search/vector_index_create", write=True, dimensions=dimensions)
        await self.query("search/vector_index_await")
        row = (
            await self.query(
                "search/vector_record", write=True, model=model, dimensions=dimensions, now=utc(now)
            )
        )[0]
        return VectorState(model=row["model"], dimensions=row["dimensions"])

    async def reset(self, batch: int = 5000) -> int:
        """Forget every vector, the index and its record (another model or dimension)."""
        cleared = 0
        while True:
            n = (await self.query("search/vector_reset", write=True, batch=batch))[0]["cleared"]
            cleared += n
            if n == 0:
                break
        await self.query("search/vector_index_drop", write=True)
        await self.query("search/vector_forget", write=True)
        return cleared

    async def missing(self, scope: str, limit: int) -> list[Missing]:
        found = await self.query("search/missing_vectors", scope=scope, limit=limit)
        return [Missing(node_id=r["id"], fields=dict(r["fields"])) for r in found]

    async def count_missing(self, scope: str) -> int:
        return int((await self.query("search/count_missing_vectors", scope=scope))[0]["missing"])

    async def scopes_missing(self) -> list[str]:
        """The scopes with texts still missing a vector (each counted through its indexes)."""
        return [s for s in await ScopeStore(self.driver, self.database).names()
                if await self.count_missing(s)]  # fmt: skip

    async def write_vectors(
        self, rows: list[dict[str, Any]], *, calls: Sequence[LedgerEntry] = ()
    ) -> int:
        """The vectors, with the model calls (cost ledger) that made them."""
        found = await self.query(
            "search/write_vectors", write=True, rows=rows, calls=[call_row(c) for c in calls]
        )
        return int(found[0]["written"])

    async def start_run(
        self, run_id: str, scope: str, by: str, missing: int, now: datetime
    ) -> None:
        await self.query(
            "search/embed_run_start", write=True, id=run_id, scope=scope, by=by, now=utc(now),
            missing=missing,
        )  # fmt: skip

    async def progress(
        self,
        run_id: str,
        *,
        embedded: int,
        missing: int,
        status: str,
        now: datetime,
        error: str | None = None,
        cut: int = 0,
    ) -> None:
        await self.query(
            "search/embed_run_progress", write=True, id=run_id, embedded=embedded,
            missing=missing, cut=cut, status=status, error=error, now=utc(now),
        )  # fmt: skip

    async def runs(self, scope: str, limit: int = 5) -> list[EmbedRun]:
        out: list[EmbedRun] = []
        for r in await self.query("search/embed_runs", scope=scope, limit=limit):
            run = r["run"]
            out.append(
                EmbedRun(
                    id=run["id"],
                    scope=run["scope"],
                    by=run["by"],
                    status=run["status"],
                    embedded=int(run["embedded"]),
                    missing=int(run["missing"]),
                    cut=int(run.get("cut") or 0),
                    started_at=from_neo4j(run["started_at"]),
                    finished_at=from_neo4j(run.get("finished_at")),
                    error=run.get("error"),
                )
            )
        return out
