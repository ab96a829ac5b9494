"""The loop's links, read in batches: the concern a signal raised or
supplemented, the signal a concern was raised for, and the concerns that brought versions.
Each read is one statement for a whole page, so nested GraphQL fields never query per item."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engine.concern.model import Concern
from engine.signal.stored import Signal
from engine.story.models import SourceVersion
from graph.base import Store
from graph.concern.codec import concern_from_doc
from graph.story.codec import decode, from_props


class SignalChain(Store):
    async def concerns_of_signals(
        self, scope: str, rows: Sequence[tuple[str, str | None]]
    ) -> dict[str, Concern]:
        """Per signal id: the concern its decision names, else the one raised for it."""
        if not rows:
            return {}
        found = await self.read_one(
            "signal/concerns_of_signals",
            scope=scope,
            rows=[{"signal_id": s, "concern_id": c} for s, c in rows],
        )
        return {r["signal_id"]: concern_from_doc(r["doc"]) for r in found}

    async def concerns_by_ids(self, scope: str, ids: Sequence[str]) -> dict[str, Concern]:
        if not ids:
            return {}
        found = await self.read_one("signal/concerns_by_ids", scope=scope, ids=list(ids))
        return {r["id"]: concern_from_doc(r["doc"]) for r in found}

    async def signals_by_ids(self, ids: Sequence[str], *, as_of: datetime) -> dict[str, Signal]:
        """The versions believed at `as_of` of the given signals, whatever their scope."""
        if not ids:
            return {}
        found = await self.read_one("signal/signals_by_ids", ids=list(ids), as_of=as_of)
        return {s.id: s for s in (decode(Signal, r["v"], believed=True) for r in found)}

    async def passage_versions(
        self, scope: str, keys: Sequence[tuple[str, str]]
    ) -> dict[tuple[str, str], SourceVersion]:
        """The source versions of `scope` the given (source id, version) pairs name."""
        if not keys:
            return {}
        found = await self.read_one(
            "signal/passage_versions", scope=scope, keys=[list(k) for k in keys]
        )
        versions = (from_props(SourceVersion, r["v"]) for r in found)
        return {(v.source_id, v.version): v for v in versions}
