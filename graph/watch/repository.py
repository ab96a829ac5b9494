"""The watch store: watches, bindings, read grants and the persisted step list
(docs/rules/watches.md).

Each write is one `execute_write` transaction whose function loads the watch, calls the
engine's decision and writes what it returns; an engine error raised inside rolls the whole
transaction back, so a rejected change writes nothing. Grants are stored as records with
`revoked_at`; recovery goes through `engine.watch.access.recover_grants`, so a revoked or
no-longer-derived grant is never brought back by a record ("失效或撤销的授权不会被恢复记录绕过").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.errors import NotFound
from engine.page import Page
from engine.watch import access
from engine.watch.access import IssueGrant, ReadGrant, RevokeGrant
from engine.watch.evidence import EvidenceOrigin, apply_evidence
from engine.watch.model import SourceBinding, Watch, WorkflowStep
from graph.base import Store, rows
from graph.watch import codec


@dataclass(frozen=True)
class WatchState:
    """A watch as stored: the engine value plus what the shell keeps beside it."""

    watch: Watch
    mounted_libraries: frozenset[str]
    steps: tuple[WorkflowStep, ...]
    steps_run_id: str | None
    resume_summary: str
    resume_truncated: bool
    resume_reread: tuple[str, ...]


async def load_state(tx: AsyncManagedTransaction, scope: str, watch_id: str) -> WatchState:
    found = await rows(tx, "watch/get_watch", scope=scope, id=watch_id)
    if not found:
        raise NotFound(f"unknown watch {watch_id}", field="watchId", id=watch_id, scope=scope)
    return state_from(found[0])


def state_from(record: Any) -> WatchState:
    """A `WatchState` from a row with `w`, `bindings` and `steps`."""
    props = codec.plain(record["w"])
    return WatchState(
        watch=codec.watch_from(props, record["bindings"]),
        mounted_libraries=frozenset(props.get("mounted_libraries") or ()),
        steps=tuple(codec.step_from(s) for s in record["steps"]),
        steps_run_id=props.get("steps_run_id"),
        resume_summary=props.get("resume_summary") or "",
        resume_truncated=bool(props.get("resume_truncated")),
        resume_reread=tuple(props.get("resume_reread") or ()),
    )


async def write_steps(
    tx: AsyncManagedTransaction,
    scope: str,
    watch_id: str,
    steps: Sequence[WorkflowStep],
    run_id: str | None,
) -> None:
    await rows(
        tx,
        "watch/replace_steps",
        scope=scope,
        watch_id=watch_id,
        run_id=run_id,
        steps=[codec.step_props(scope, watch_id, i, s) for i, s in enumerate(steps)],
    )


async def _apply_grant_effects(
    tx: AsyncManagedTransaction, scope: str, effects: Sequence[RevokeGrant | IssueGrant]
) -> None:
    revokes = [e for e in effects if isinstance(e, RevokeGrant)]
    for reason in sorted({r.reason for r in revokes}):
        batch = [r for r in revokes if r.reason == reason]
        await rows(
            tx,
            "watch/revoke_grants",
            scope=scope,
            watch_id=batch[0].watch_id,
            binding_ids=[r.binding_id for r in batch],
            reason=reason,
            at=batch[0].revoked_at,
        )
    issues = [e for e in effects if isinstance(e, IssueGrant)]
    if issues:
        await rows(
            tx,
            "watch/issue_grants",
            rows=[codec.grant_props(scope, i.grant, i.issued_at) for i in issues],
        )


class WatchRepository(Store):
    # --- watches ------------------------------------------------------------------------

    async def create(self, watch: Watch, mounted_libraries: frozenset[str]) -> WatchState:
        """Store a new watch and open a grant for each single bound document
        (docs/rules/watches.md)."""

        async def work(tx: AsyncManagedTransaction) -> WatchState:
            await rows(
                tx,
                "watch/create_watch",
                watch=codec.watch_props(watch, mounted_libraries),
                bindings=[codec.binding_props(watch, b) for b in watch.bindings],
            )
            issued = [
                IssueGrant(grant=g, issued_at=watch.created_at)
                for g in access.document_grants(watch)
            ]
            await _apply_grant_effects(tx, watch.scope, issued)
            return await load_state(tx, watch.scope, watch.watch_id)

        state: WatchState = await self.write(work)
        return state

    async def get(self, scope: str, watch_id: str) -> WatchState:
        async def work(tx: AsyncManagedTransaction) -> WatchState:
            return await load_state(tx, scope, watch_id)

        state: WatchState = await self.read(work)
        return state

    async def page(
        self, scope: str, *, after: tuple[datetime, str] | None, first: int, with_total: bool
    ) -> Page[WatchState]:
        """A page of watches after the keyset (created_at, id), oldest first: one statement
        with bindings and steps, cut at `first`; the count is a second one, only when asked."""

        async def work(tx: AsyncManagedTransaction) -> Page[WatchState]:
            found = await rows(
                tx,
                "watch/page_watches",
                scope=scope,
                after_created_at=after[0] if after else None,
                after_id=after[1] if after else None,
                limit=first + 1,
            )
            total = None
            if with_total:
                total = int((await rows(tx, "watch/count_watches", scope=scope))[0]["total"])
            return Page.of([state_from(r) for r in found], first, total)

        return await self.read(work)

    async def _change(
        self,
        scope: str,
        watch_id: str,
        decide: Callable[[Watch], tuple[Watch, Sequence[RevokeGrant | IssueGrant]]],
        bindings_changed: bool = False,
    ) -> WatchState:
        async def work(tx: AsyncManagedTransaction) -> WatchState:
            before = await load_state(tx, scope, watch_id)
            after, effects = decide(before.watch)
            await rows(
                tx,
                "watch/update_watch",
                scope=scope,
                id=watch_id,
                props={"status": after.status.value, "changed_at": after.changed_at},
            )
            if bindings_changed:
                await rows(
                    tx,
                    "watch/replace_bindings",
                    scope=scope,
                    watch_id=watch_id,
                    bindings=[codec.binding_props(after, b) for b in after.bindings],
                )
            await _apply_grant_effects(tx, scope, effects)
            return await load_state(tx, scope, watch_id)

        state: WatchState = await self.write(work)
        return state

    async def stop(self, scope: str, watch_id: str, *, now: datetime) -> WatchState:
        return await self._change(scope, watch_id, lambda w: access.stop_watch(w, now))

    async def delete(self, scope: str, watch_id: str, *, now: datetime) -> WatchState:
        return await self._change(scope, watch_id, lambda w: access.delete_watch(w, now))

    async def resume(self, scope: str, watch_id: str, *, now: datetime) -> WatchState:
        """Enable again: grants are issued afresh from the current bindings, never recovered."""

        def decide(w: Watch) -> tuple[Watch, Sequence[RevokeGrant | IssueGrant]]:
            after = access.resume_watch(w, now)
            fresh = [] if w.is_active else access.document_grants(after)
            return after, [IssueGrant(grant=g, issued_at=now) for g in fresh]

        return await self._change(scope, watch_id, decide)

    async def rebind(
        self, scope: str, watch_id: str, bindings: Sequence[SourceBinding], *, now: datetime
    ) -> WatchState:
        return await self._change(
            scope,
            watch_id,
            lambda w: access.replace_bindings(w, bindings, now),
            bindings_changed=True,
        )

    async def set_fields(self, scope: str, watch_id: str, props: Mapping[str, Any]) -> None:
        """Scalar fields the shell keeps on the watch (resume summary, record location)."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await load_state(tx, scope, watch_id)
            await rows(tx, "watch/update_watch", scope=scope, id=watch_id, props=dict(props))

        await self.write(work)

    # --- grants -------------------------------------------------------------------------

    async def grant_records(self, scope: str, watch_id: str) -> list[dict[str, Any]]:
        async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            return [
                codec.plain(r["g"])
                for r in await rows(tx, "watch/grants_of", scope=scope, watch_id=watch_id)
            ]

        records: list[dict[str, Any]] = await self.read(work)
        return records

    async def recover_grants(self, scope: str, watch_id: str) -> tuple[ReadGrant, ...]:
        """Grants a restarted checker may use: recorded, unrevoked, and still derived."""

        async def work(tx: AsyncManagedTransaction) -> tuple[ReadGrant, ...]:
            state = await load_state(tx, scope, watch_id)
            recorded = [
                codec.grant_from(r["g"])
                for r in await rows(tx, "watch/grants_of", scope=scope, watch_id=watch_id)
                if r["g"].get("revoked_at") is None
            ]
            return access.recover_grants(state.watch, recorded)

        grants: tuple[ReadGrant, ...] = await self.read(work)
        return grants

    # --- steps --------------------------------------------------------------------------

    async def save_steps(
        self, scope: str, watch_id: str, steps: Sequence[WorkflowStep], run_id: str | None
    ) -> None:
        async def work(tx: AsyncManagedTransaction) -> None:
            await load_state(tx, scope, watch_id)
            await write_steps(tx, scope, watch_id, steps, run_id)

        await self.write(work)

    async def record_step_evidence(
        self,
        scope: str,
        watch_id: str,
        updates: Sequence[Mapping[str, Any]],
        *,
        recorded_by: str,
        now: datetime,
    ) -> WatchState:
        """`recordStepEvidence`: a batch against the persisted list, all or nothing
        (docs/rules/watches.md, step 3).

        The evidence carries the person who recorded it, never the checker's run id: it
        does not count as this or any run's verification (docs/rules/watches.md).
        """

        async def work(tx: AsyncManagedTransaction) -> WatchState:
            state = await load_state(tx, scope, watch_id)
            applied = apply_evidence(
                state.steps,
                updates,
                recorded_by=recorded_by,
                now=now,
                origin=EvidenceOrigin.UPDATES,
            )
            await write_steps(tx, scope, watch_id, applied.steps, state.steps_run_id)
            return await load_state(tx, scope, watch_id)

        state: WatchState = await self.write(work)
        return state
