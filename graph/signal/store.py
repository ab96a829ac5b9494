"""Signals stored and read: identity node + immutable SignalVersion nodes, each
citing its source version by locator. Recording runs inside the caller's transaction (the
review's publish transaction), so a signal exists only if its result commits."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.clock import FOREVER, utc
from engine.errors import InvalidInput
from engine.page import Page
from engine.signal.model import SignalDraft
from engine.signal.policy import AgendaPolicy, Reachable
from engine.signal.reach import candidate_bindings, reachable_person
from engine.signal.stored import Reach, Signal, new_signals, signal_id
from engine.story.models import Actor
from graph.base import Store
from graph.signal.bindings import ContextRow, PersonBindings
from graph.story.codec import decode, from_props, version_row


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
        answerer: Reachable | None = None,
    ) -> list[Signal]:
        """Record the drafts this scope does not hold yet (by fingerprint); a draft whose
        passage names no source version of the scope rejects the whole write. `by`/`why`/
        `via_concern`: who states them when no run does (an answer through a concern);
        `answerer`: the person who said them through that concern, reachable by the channel
        they answered on (their own words, so no name is matched) when no binding is found."""
        drafts = list(drafts)
        if not drafts:
            return []
        ids = sorted({signal_id(scope, d.fingerprint) for d in drafts})
        known = [r["id"] for r in await self.rows(tx, "signal/signal_ids", scope=scope, ids=ids)]
        reach = None
        if policy is not None and policy.loop_enabled:
            reach = await self._reach(tx, drafts, set(known), scope=scope, now=now)
            if answerer is not None:
                reach = {sid: (person or answerer, cover) for sid, (person, cover) in reach.items()}
        signals = new_signals(
            drafts,
            scope=scope,
            run_id=run_id,
            result_id=result_id,
            now=now,
            known=known,
            policy=policy,
            reach=reach,
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

    async def open_questions_in(
        self, tx: AsyncManagedTransaction, scope: str, source_ids: Iterable[str]
    ) -> list[Signal]:
        """The current versions of the scope's open QUESTION signals citing these sources."""
        rows = await self.rows(
            tx,
            "signal/open_questions",
            scope=scope,
            source_ids=sorted(set(source_ids)),
            forever=FOREVER,
        )
        return [from_props(Signal, r["v"]) for r in rows]

    async def write_versions_in(
        self, tx: AsyncManagedTransaction, versions: Iterable[Signal]
    ) -> None:
        """Later versions of signals, each retracting its current predecessor; one whose
        predecessor is no longer current (a concurrent writer) aborts the whole write."""
        versions = list(versions)
        if not versions:
            return
        rows = await self.rows(
            tx,
            "signal/write_signal_versions",
            rows=[version_row(v) for v in versions],
            forever=FOREVER,
        )
        if not rows or rows[0]["written"] != len(versions) or rows[0]["orphaned"]:
            raise InvalidInput("a signal changed concurrently; nothing was written")

    async def _reach(
        self,
        tx: AsyncManagedTransaction,
        drafts: list[SignalDraft],
        known: set[str],
        *,
        scope: str,
        now: datetime,
    ) -> dict[str, Reach]:
        """What the graph knows for the new drafts, in one statement."""
        rows = {}
        for d in drafts:
            sid = signal_id(scope, d.fingerprint)
            if sid not in known:
                rows[sid] = ContextRow(
                    key=sid,
                    binding_ids=candidate_bindings(scope, d),
                    target_kind=d.target_kind,
                    target_id=d.target_id,
                    subject=d.subject,
                )
        found = await PersonBindings(self.driver, self.database).context_in(
            tx, scope, list(rows.values()), now
        )
        by_id = {signal_id(scope, d.fingerprint): d for d in drafts}
        return {
            sid: (reachable_person(by_id[sid], k.bound, k.responsible, k.corrector), k.covering)
            for sid, k in found.items()
        }

    async def get(self, scope: str, signal_id: str, *, now: datetime) -> Signal | None:
        rows = await self.read_one("signal/signal_get", scope=scope, id=signal_id, now=utc(now))
        return decode(Signal, rows[0]["v"], believed=False) if rows else None

    async def raised_without_concern(
        self, *, since: datetime, before: datetime, now: datetime, limit: int = 200
    ) -> list[tuple[str, str]]:
        """(scope, signal id) of raised signals recorded in [since, before) with no concern."""
        rows = await self.read_one(
            "signal/raised_without_concern",
            since=utc(since),
            before=utc(before),
            now=utc(now),
            limit=limit,
        )
        return [(str(r["scope"]), str(r["id"])) for r in rows]

    async def page(
        self,
        scope: str,
        *,
        as_of: datetime,
        kind: str | None = None,
        status: str | None = None,
        first: int,
        after_id: str | None = None,
        with_total: bool = False,
    ) -> Page[Signal]:
        """The signals believed at `as_of`, in id order after the keyset `after_id`; with
        their count when asked for."""
        total = None
        if with_total:
            counted = await self.read_one(
                "signal/count_signals", scope=scope, as_of=as_of, kind=kind, status=status
            )
            total = int(counted[0]["n"])
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
        return Page.of(signals, first, total, as_of)
