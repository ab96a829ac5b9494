"""The graph view's replay tables: every version of a scope's graph objects as compact rows.

The page (web/viz.html) lays out the union of what a scope ever had once, keyed by id, and
replays any record moment in the browser: a version is shown at T when
`recorded_ms <= T < retracted_ms` (docs/rules/story-graph.md#time), so moving the slider needs no
round trip and positions never jump. Times are epoch milliseconds (UTC). A `from`/`to` window keeps
the events in it, the entities those events touch and the relations among those entities (the rule
`storyGraph` uses for windows), so a large scope can be read a window at a time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.base import Store
from graph.temporal import from_neo4j

TABLES = {
    "entities": "view/replay_entities",
    "relations": "view/replay_relations",
    "events": "view/replay_events",
    "changes": "view/replay_changes",
    "summaries": "view/replay_summaries",
    "moments": "view/replay_moments",
    "signals": "view/replay_signals",
}


class ReplayStore(Store):
    """The graph view page's reads: the replay tables and the scope's recorded range."""

    async def replay(
        self, scope: str, *, from_: datetime | None = None, to: datetime | None = None
    ) -> dict[str, list[Any]]:
        async def work(tx: AsyncManagedTransaction) -> dict[str, list[Any]]:
            out: dict[str, list[Any]] = {}
            for name, key in TABLES.items():
                found = await self.rows(tx, key, scope=scope)
                out[name] = list(found[0]["rows"]) if found else []
            return out

        tables = await self.read(work)
        tables["moments"].sort()
        if from_ is not None or to is not None:
            tables = window(tables, from_, to)
        return tables

    async def recorded_range(self, scope: str) -> tuple[datetime | None, datetime | None]:
        """First and last record time of the scope's results (None, None when it has none)."""
        found = await self.query("view/recorded_range", scope=scope)
        if not found:
            return None, None
        return from_neo4j(found[0]["first"]), from_neo4j(found[0]["last"])


def window(
    tables: dict[str, list[Any]], from_: datetime | None, to: datetime | None
) -> dict[str, list[Any]]:
    lo = from_.timestamp() * 1000 if from_ else float("-inf")
    hi = to.timestamp() * 1000 if to else float("inf")
    events = [e for e in tables["events"] if lo <= e[3] <= hi]
    event_ids = {e[0] for e in events}
    changes = [c for c in tables["changes"] if c[1] in event_ids]
    touched = {c[2] for c in changes}
    return {
        "entities": [e for e in tables["entities"] if e[0] in touched],
        "relations": [r for r in tables["relations"] if r[2] in touched and r[3] in touched],
        "events": events,
        "changes": changes,
        "summaries": [s for s in tables["summaries"] if s[2] >= lo and s[1] <= hi],
        "moments": tables["moments"],
        "signals": tables["signals"],  # a window keeps every signal (the chain, the due marks)
    }
