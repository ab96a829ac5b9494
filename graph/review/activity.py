"""Activity pages (docs/rules/reviews.md) read in the database: the heartbeat runs and the
supervision runs of one page, newest first, with the runs joined to the page's heartbeats.

One read transaction: `review/activity_page` lists the page's rows (every filter but status
applied), then the supervision runs those rows need are loaded in one statement. The rows
themselves (status, join, labels) are the engine's (`engine.review.activity`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.review.heartbeat import HeartbeatRun
from engine.review.lifecycle import SupervisionRun
from graph.base import Store
from graph.review.runs import SupervisionRuns
from graph.temporal import from_epoch_us, to_neo4j

ActivityKey = tuple[datetime, str]  # (started at, row id): the keyset, newest first


@dataclass(frozen=True)
class ActivityFilters:
    """The filters the database applies (status is derived, so the caller applies it)."""

    scopes: Sequence[str] | None = None  # story scopes the caller may use; None: every one
    scope_key: str | None = None
    config_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def params(self) -> dict[str, Any]:
        return {
            "scopes": sorted(set(self.scopes)) if self.scopes is not None else None,
            "scope_key": self.scope_key,
            "config_id": self.config_id,
            "since": to_neo4j(self.since),
            "until": to_neo4j(self.until),
        }


@dataclass(frozen=True)
class ActivityBatch:
    records: list[HeartbeatRun | SupervisionRun]  # the rows' records, in page order
    joined: list[SupervisionRun]  # the supervision runs the page's heartbeats saved links with
    last: ActivityKey | None  # the last row's key (the cursor after this batch)
    read: int  # rows the page query returned (fewer than asked: the list ended)


class ActivityReads(Store):
    def __init__(self, driver: AsyncDriver, database: str, *, deployment: str) -> None:
        super().__init__(driver, database)
        self.deployment = deployment  # the arq queue name: a deployment's global records

    async def page(
        self, filters: ActivityFilters, *, after: ActivityKey | None, limit: int
    ) -> ActivityBatch:
        runs = SupervisionRuns(self.driver, self.database, deployment=self.deployment)

        async def work(tx: AsyncManagedTransaction) -> ActivityBatch:
            params = {
                **filters.params(),
                "deployment": self.deployment,
                "after_at": to_neo4j(after[0]) if after else None,
                "after_key": after[1] if after else None,
                "limit": limit,
            }
            if filters.scopes is None:  # every scope: one walk of the deployment's index
                del params["scopes"]
                found = await self.rows(tx, "review/activity_page", **params)
            else:  # each of the caller's scopes sought on its own
                found = await self.rows(tx, "review/activity_page_in_scopes", **params)
            wanted = {r["run_id"] for r in found if r["run_id"]}
            wanted |= {i for r in found for i in r["joined"]}
            loaded = {s.run.run_id: s.run for s in await runs.load_in(tx, sorted(wanted))}
            records: list[HeartbeatRun | SupervisionRun] = []
            for r in found:
                if r["doc"] is not None:
                    records.append(HeartbeatRun.model_validate(json.loads(r["doc"])))
                elif r["run_id"] in loaded:
                    records.append(loaded[r["run_id"]])
            joined = [loaded[i] for r in found for i in r["joined"] if i in loaded]
            last = (from_epoch_us(found[-1]["at"]), found[-1]["key"]) if found else None
            return ActivityBatch(records=records, joined=joined, last=last, read=len(found))

        return await self.read(work)

    async def count(self, filters: ActivityFilters) -> int:
        async def work(tx: AsyncManagedTransaction) -> int:
            found = await self.rows(
                tx, "review/activity_count", deployment=self.deployment, **filters.params()
            )
            return int(found[0]["n"])

        return await self.read(work)
