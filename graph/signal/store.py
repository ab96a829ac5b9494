"""Signals stored and read (issue 28): identity node + immutable SignalVersion nodes, each
citing its source version by locator. Recording runs inside the caller's transaction (the
review's publish transaction), so a signal exists only if its result commits."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.errors import InvalidInput
from engine.page import Page
from engine.signal.model import SignalDraft
from engine.signal.policy import AgendaPolicy
from engine.signal.stored import Signal, new_signals, signal_id
from engine.story.models import Actor
from graph.base import Store
from graph.story.codec import decode, version_row


class SignalStore(Store):
    async def record_in(
        self,
        tx: AsyncManagedTransaction,
        drafts: Iterable[SignalDraft],
        *,
        scope: str,
        run_id: str,
        result_id: str,
        now: datetime,
        policy: AgendaPolicy | None = None,
        by: Actor | None = None,
        why: str = "review",
        via_concern: str | None = None,
    ) -> list[Signal]:
        """Record the drafts this scope does not hold yet (by fingerprint); a draft whose
        passage names no source version of the scope rejects the whole write. `by`/`why`/
        `via_concern`: who states them when no run does (an answer through a concern)."""
        drafts = list(drafts)
        if not drafts:
            return []
        ids = sorted({signal_id(scope, d.fingerprint) for d in drafts})
        known = [r["id"] for r in await self.rows(tx, "signal/signal_ids", scope=scope, ids=ids)]
        signals = new_signals(
            drafts,
            scope=scope,
            run_id=run_id,
            result_id=result_id,
            now=now,
            known=known,
            policy=policy,
        )
        if by is not None:
            signals = [
                s.model_copy(update={"by": by, "why": why, "via_concern": via_concern})
                for s in signals
            ]
        if not signals:
            return []
        rows = await self.rows(tx, "signal/write_signals", rows=[version_row(s) for s in signals])
        if rows[0]["written"] != len(signals):
            raise InvalidInput("a signal lost its passage; nothing was written")
        return signals

    async def page(
        self,
        scope: str,
        *,
        as_of: datetime,
        kind: str | None = None,
        status: str | None = None,
        first: int,
        after_id: str | None = None,
    ) -> Page[Signal]:
        """The signals believed at `as_of`, in id order after the keyset `after_id`."""
        rows = await self.read_one(
            "signal/page_signals",
            scope=scope,
            as_of=as_of,
            kind=kind,
            status=status,
            after_id=after_id or "",
            limit=first + 1,
        )
        signals = [decode(Signal, r["v"], believed=True) for r in rows]
        return Page.of(signals, first, None, as_of)
