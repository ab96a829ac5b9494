"""The cost ledger in Neo4j: `(:ModelCall)` nodes, written with their owner's records.

Calls are written inside the statement that writes their owner's records, with no
statement of their own (`cypher/fragments/model_calls.cypher`, included by each): a
supervision run's by `review/run_write` when it commits the batch or node they were made for
(carrying its `run_id`), a concern loop turn's by `concern/save` with the turn's
decision, a watch check's by `watch/write_observation`, a heartbeat report's by
`review/heartbeat_put`. `CostLedger.record` writes the calls of an owner that wrote nothing
(`llm/write_calls`). Sums are read per run, batch, concern, watch and scope by index
(cypher/schema/082_model_calls.cypher).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.llm.ledger import CostLine, CostSum, LedgerEntry
from engine.page import Page
from graph.base import Store
from graph.temporal import to_neo4j


def call_row(entry: LedgerEntry) -> dict[str, Any]:
    row = entry.model_dump(mode="python")
    row["stage"] = entry.stage.value
    row["at"] = to_neo4j(entry.at)
    return row


def cost_sum(row: Any) -> CostSum:
    return CostSum(
        calls=row["calls"],
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        retries=row["retries"],
        estimated_calls=row["estimated_calls"],
    )


def owner_sums(ids: Sequence[str], records: Sequence[Any]) -> list[CostSum]:
    found = {r["owner"]: cost_sum(r) for r in records}
    return [found.get(i, CostSum()) for i in ids]


def cost_line(record: Any) -> CostLine:
    row = dict(record)
    return CostLine(
        stage=row["stage"],
        model=row["model"],
        run_id=row["run_id"],
        batch=row["batch"],
        concern_id=row["concern_id"],
        watch_id=row["watch_id"],
        cost=cost_sum(row),
    )


@dataclass(frozen=True)
class KeyedLine:
    """A ledger line with its sort key (run, batch, stage, model, concern, watch), the
    keyset a page of lines is read after."""

    key: str
    line: CostLine


@dataclass(frozen=True)
class LedgerSums:
    """The sums of a scope's ledger over a whole window: in all, per (stage, model), and per
    run, concern and watch, each in the order of its key."""

    total: CostSum = field(default_factory=CostSum)
    by_stage: list[tuple[str, str, CostSum]] = field(default_factory=list)
    by_run: list[tuple[str, CostSum]] = field(default_factory=list)
    by_concern: list[tuple[str, CostSum]] = field(default_factory=list)
    by_watch: list[tuple[str, CostSum]] = field(default_factory=list)


def ledger_sums(records: Sequence[Any]) -> LedgerSums:
    sums = LedgerSums()
    owners = {"run": sums.by_run, "concern": sums.by_concern, "watch": sums.by_watch}
    for r in records:
        if r["part"] == "total":
            sums = LedgerSums(
                cost_sum(r), sums.by_stage, sums.by_run, sums.by_concern, sums.by_watch
            )
        elif r["part"] == "stage":
            sums.by_stage.append((r["id"], r["model"], cost_sum(r)))
        else:
            owners[r["part"]].append((r["id"], cost_sum(r)))
    return sums


class CostLedger(Store):
    async def record(self, calls: Sequence[LedgerEntry]) -> None:
        """Calls whose owner wrote nothing (a failed or a no-op turn), in a transaction of
        their own."""
        if calls:
            await self.query("llm/write_calls", write=True, calls=[call_row(c) for c in calls])

    async def in_scope(self, scope: str, since: datetime, until: datetime) -> list[CostLine]:
        rows = await self.query(
            "llm/cost_in_scope", scope=scope, since=to_neo4j(since), until=to_neo4j(until)
        )
        return [cost_line(r) for r in rows]

    async def sums(self, scope: str, since: datetime, until: datetime) -> LedgerSums:
        """The window's sums, computed in the database over every call of it."""
        rows = await self.query(
            "llm/cost_sums_in_scope", scope=scope, since=to_neo4j(since), until=to_neo4j(until)
        )
        return ledger_sums(rows)

    async def lines_page(
        self,
        scope: str,
        since: datetime,
        until: datetime,
        *,
        first: int,
        after: str | None = None,
        with_total: bool = False,
    ) -> Page[KeyedLine]:
        """One page of the window's lines after the keyset `after`; their count when asked."""
        window = {"scope": scope, "since": to_neo4j(since), "until": to_neo4j(until)}
        total = None
        if with_total:
            total = int((await self.query("llm/cost_lines_count", **window))[0]["n"])
        rows = await self.query("llm/cost_lines_page", **window, after=after or "", limit=first + 1)
        return Page.of([KeyedLine(r["key"], cost_line(r)) for r in rows], first, total)

    async def of_concerns(self, ids: Sequence[str]) -> list[CostSum]:
        """Each concern's summed calls, in the order of `ids` (none: zero)."""
        return owner_sums(ids, await self.query("llm/cost_of_concerns", ids=list(ids)))

    async def of_watches(self, ids: Sequence[str]) -> list[CostSum]:
        """Each watch's summed calls, in the order of `ids` (none: zero)."""
        return owner_sums(ids, await self.query("llm/cost_of_watches", ids=list(ids)))

    async def of_runs(self, run_ids: Sequence[str]) -> list[CostLine]:
        rows = await self.query("llm/cost_of_runs", run_ids=list(run_ids))
        return [cost_line(r) for r in rows]


async def call_totals(store: Store) -> list[tuple[str, str, int, int, int]]:
    """(stage, model, calls, prompt tokens, completion tokens), deployment-wide."""
    rows = await store.query("llm/call_totals")
    return [
        (r["stage"], r["model"], r["calls"], r["prompt_tokens"], r["completion_tokens"])
        for r in rows
    ]
