"""What checks leave behind: runs, observations, hand-offs and checkpoints (docs/rules/watches.md).

- A run is claimed by its stable id (MERGE): a duplicate trigger finds it and does nothing.
- An observation is written together with the step list and the resume summary in one
  transaction ("脱敏工具摘要和步骤清单持久化到已有关注存储"); its tool summaries are already
  redacted by the caller.
- A hand-off is MERGEd on its stable execution key; a second one with the same key is
  dropped and reported as such (docs/rules/watches.md).
- Checkpoints carry their own sync status and sync round count (the record sync is its own
  durable task with its own cap).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.errors import NotFound
from engine.llm.ledger import LedgerEntry
from engine.watch.delivery import Delivery
from engine.watch.model import Checkpoint, HandOff, Observation, WorkflowStep
from graph.base import Store, rows
from graph.llm.ledger import call_row
from graph.watch import codec
from graph.watch.repository import load_state, write_steps


@dataclass(frozen=True)
class RunClaim:
    claimed: bool
    run: dict[str, Any]


@dataclass(frozen=True)
class StoredObservation:
    observation: Observation
    props: dict[str, Any]  # the shell's fields: retries, rounds, tool summaries, error …


@dataclass(frozen=True)
class HandOffWrite:
    handoff: HandOff
    delivered: bool  # False: the key was already delivered; this one was dropped
    delivery: Delivery  # where the stored hand-off's delivery stands


class WatchRecords(Store):
    # --- runs ---------------------------------------------------------------------------

    async def record_queued(
        self, scope: str, runs: Mapping[str, str], *, deployment: str, now: datetime
    ) -> None:
        """Record requested checks (run id -> watch id) as `queued` before their jobs are
        enqueued, so the reconciler knows a job lost before any worker took it. Runs that
        exist already are left as they are."""
        if not runs:
            return
        queued = [
            {
                "id": run_id,
                "scope": scope,
                "watch_id": watch_id,
                "deployment": deployment,
                "status": "queued",
                "queued_at": now,
            }
            for run_id, watch_id in runs.items()
        ]

        async def work(tx: AsyncManagedTransaction) -> None:
            await rows(tx, "watch/record_queued_runs", runs=queued)

        await self.write(work)

    async def claim_run(
        self,
        scope: str,
        watch_id: str,
        run_id: str,
        *,
        worker_id: str,
        now: datetime,
        deployment: str | None = None,
    ) -> RunClaim:
        """Create the run `running`, or take a `queued` one; `claimed` when this call did."""
        run = {
            "id": run_id,
            "scope": scope,
            "watch_id": watch_id,
            "status": "running",
            "claimed_by": worker_id,
            "started_at": now,
            "deployment": deployment,
        }

        async def work(tx: AsyncManagedTransaction) -> RunClaim:
            await load_state(tx, scope, watch_id)
            found = (await rows(tx, "watch/claim_run", run=run))[0]
            return RunClaim(claimed=bool(found["claimed"]), run=codec.plain(found["r"]))

        claim: RunClaim = await self.write(work)
        return claim

    async def update_run(self, scope: str, run_id: str, props: Mapping[str, Any]) -> None:
        async def work(tx: AsyncManagedTransaction) -> None:
            await rows(tx, "watch/update_run", scope=scope, id=run_id, props=dict(props))

        await self.write(work)

    async def runs(self, scope: str, watch_id: str, limit: int = 20) -> list[dict[str, Any]]:
        async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            found = await rows(tx, "watch/runs_of", scope=scope, watch_id=watch_id, limit=limit)
            return [codec.plain(r["r"]) for r in found]

        result: list[dict[str, Any]] = await self.read(work)
        return result

    # --- observations -------------------------------------------------------------------

    async def save_observation(
        self,
        scope: str,
        observation: Observation,
        extra: Mapping[str, Any],
        *,
        steps: Sequence[WorkflowStep] | None,
        watch_fields: Mapping[str, Any],
        calls: Sequence[LedgerEntry] = (),
    ) -> None:
        """Observation, step list, the watch's resume fields and the check's model calls
        (cost ledger) in one transaction."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await load_state(tx, scope, observation.watch_id)
            await rows(
                tx,
                "watch/write_observation",
                observation=codec.observation_props(scope, observation, extra),
                calls=[call_row(c) for c in calls],
            )
            if steps is not None:
                await write_steps(tx, scope, observation.watch_id, steps, observation.run_id)
            await rows(
                tx,
                "watch/update_watch",
                scope=scope,
                id=observation.watch_id,
                props=dict(watch_fields),
            )

        await self.write(work)

    async def observations(
        self, scope: str, watch_id: str, limit: int = 20
    ) -> list[StoredObservation]:
        async def work(tx: AsyncManagedTransaction) -> list[StoredObservation]:
            found = await rows(
                tx, "watch/observations_of", scope=scope, watch_id=watch_id, limit=limit
            )
            return [
                StoredObservation(codec.observation_from(r["o"]), codec.plain(r["o"]))
                for r in found
            ]

        result: list[StoredObservation] = await self.read(work)
        return result

    # --- hand-offs ----------------------------------------------------------------------

    async def hand_off(self, scope: str, handoff: HandOff) -> HandOffWrite:
        async def work(tx: AsyncManagedTransaction) -> HandOffWrite:
            found = (
                await rows(tx, "watch/merge_handoff", handoff=codec.handoff_props(scope, handoff))
            )[0]
            return HandOffWrite(
                codec.handoff_from(found["h"]),
                bool(found["delivered"]),
                codec.delivery_from(found["h"]),
            )

        result: HandOffWrite = await self.write(work)
        return result

    async def handoffs(self, scope: str, watch_id: str) -> list[HandOff]:
        async def work(tx: AsyncManagedTransaction) -> list[HandOff]:
            found = await rows(tx, "watch/handoffs_of", scope=scope, watch_id=watch_id)
            return [codec.handoff_from(r["h"]) for r in found]

        result: list[HandOff] = await self.read(work)
        return result

    # --- checkpoints --------------------------------------------------------------------

    async def save_checkpoint(self, scope: str, checkpoint: Checkpoint) -> Checkpoint:
        async def work(tx: AsyncManagedTransaction) -> Checkpoint:
            found = await rows(
                tx,
                "watch/write_checkpoint",
                checkpoint=codec.checkpoint_props(scope, checkpoint),
            )
            if not found:
                raise NotFound(f"unknown watch {checkpoint.watch_id}", field="watchId")
            return codec.checkpoint_from(found[0]["c"])[0]

        result: Checkpoint = await self.write(work)
        return result

    async def checkpoint(self, scope: str, checkpoint_id: str) -> tuple[Checkpoint, int]:
        async def work(tx: AsyncManagedTransaction) -> tuple[Checkpoint, int]:
            found = await rows(tx, "watch/get_checkpoint", scope=scope, id=checkpoint_id)
            if not found:
                raise NotFound(f"unknown checkpoint {checkpoint_id}", field="checkpointId")
            return codec.checkpoint_from(found[0]["c"])

        result: tuple[Checkpoint, int] = await self.read(work)
        return result

    async def update_checkpoint(self, scope: str, checkpoint: Checkpoint, sync_rounds: int) -> None:
        props = codec.checkpoint_props(scope, checkpoint, sync_rounds)
        changed = {k: props[k] for k in ("sync_status", "sync_error", "synced_at", "sync_rounds")}

        async def work(tx: AsyncManagedTransaction) -> None:
            await rows(
                tx,
                "watch/update_checkpoint",
                scope=scope,
                id=checkpoint.checkpoint_id,
                props=changed,
            )

        await self.write(work)

    async def checkpoints(
        self, scope: str, watch_id: str, limit: int = 20
    ) -> list[tuple[Checkpoint, int]]:
        async def work(tx: AsyncManagedTransaction) -> list[tuple[Checkpoint, int]]:
            found = await rows(
                tx, "watch/checkpoints_of", scope=scope, watch_id=watch_id, limit=limit
            )
            return [codec.checkpoint_from(r["c"]) for r in found]

        result: list[tuple[Checkpoint, int]] = await self.read(work)
        return result
