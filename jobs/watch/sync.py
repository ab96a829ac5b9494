"""The record sync of check checkpoints: its own durable task (¶2; docs/rules/watches.md).

    sync_checkpoint(deps, principal, scope=..., checkpoint_id=...)

(the arq job `sync_watch_checkpoint` in jobs/tasks/watch.py calls it as WORKER and turns
`SyncRetry` into arq's Retry).

A checkpoint is written to its record location. A location `note:<id>` is a note Source in
the watch's project: the sync appends the checkpoint to the note as a new version through
the story graph (`upsertSource`'s path), keyed by the checkpoint id so a repeated sync adds
no second version. Any other location is reported as a record-sync failure.

A sync failure is a record-sync failure, never a source-check failure
(`engine.watch.checkpoint.apply_sync_result`), and the task keeps its own 12-round cap
(`engine.watch.budget.RecordSyncBudget`), independent of the check's budget.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engine.errors import StorygraphError
from engine.principal import Principal
from engine.scope import require_scope
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind as StorySourceKind
from engine.watch.budget import RecordSyncBudget, spend_sync_round
from engine.watch.checkpoint import apply_sync_result
from engine.watch.model import Checkpoint, SourceKey, SourceKind, SyncStatus
from graph.story.repository import StoryRepository
from graph.watch.catalogue import SourceCatalogue
from graph.watch.records import WatchRecords
from jobs.deps import Deps

RETRY_DEFER_SECONDS = 5


class SyncFailed(Exception):
    """The record location could not take the checkpoint."""


class SyncRetry(Exception):
    """A transient failure with rounds left: run the sync again after `RETRY_DEFER_SECONDS`."""


def render(checkpoint: Checkpoint) -> str:
    data = json.dumps(checkpoint.data, ensure_ascii=False, sort_keys=True)
    return (
        f"[checkpoint {checkpoint.checkpoint_id} · run {checkpoint.run_id} · "
        f"{checkpoint.recorded_at.isoformat()}]\n{checkpoint.instructions}\n{data}"
    )


async def write_to_location(deps: Deps, scope: str, checkpoint: Checkpoint, now: datetime) -> None:
    try:
        key = SourceKey.parse(checkpoint.location)
    except ValueError as exc:
        raise SyncFailed(f"unsupported record location {checkpoint.location!r}") from exc
    if key.kind is not SourceKind.NOTE:
        raise SyncFailed(f"record location {key.value} is not a note")
    current = await SourceCatalogue(deps.driver, deps.database).current(scope, key.item_id)
    if current is None or current.text is None:
        raise SyncFailed(f"record note {key.value} does not exist in project {scope}")
    version = f"checkpoint-{checkpoint.checkpoint_id}"
    if current.revision == version:
        return
    await StoryRepository(deps.driver, deps.database).upsert_source(
        SourceInput(
            scope=scope,
            id=key.item_id,
            kind=StorySourceKind.NOTE,
            title=current.title,
            version=version,
            text=f"{current.text}\n\n{render(checkpoint)}",
        ),
        now=now,
    )


async def sync_checkpoint(
    deps: Deps, principal: Principal, *, scope: str, checkpoint_id: str
) -> dict[str, Any]:
    """One sync round of one checkpoint; its report (see the module note)."""
    scope = require_scope(principal, "operator", scope)
    records = WatchRecords(deps.driver, deps.database)
    checkpoint, rounds = await records.checkpoint(scope, checkpoint_id)
    if checkpoint.sync_status is SyncStatus.SYNCED:
        return {"checkpointId": checkpoint_id, "status": "synced", "duplicate": True}
    budget = RecordSyncBudget(rounds_used=rounds)
    if budget.exhausted:
        return {
            "checkpointId": checkpoint_id,
            "status": checkpoint.sync_status.value,
            "failureKind": "record_sync",
            "message": "sync round cap reached",
        }
    budget = spend_sync_round(budget)
    now = deps.clock()
    transient = False
    try:
        await write_to_location(deps, scope, checkpoint, now)
        updated, report = apply_sync_result(checkpoint, ok=True, error=None, now=now)
    except SyncFailed as exc:
        updated, report = apply_sync_result(checkpoint, ok=False, error=str(exc), now=now)
    except (StorygraphError, OSError) as exc:
        transient = True
        updated, report = apply_sync_result(checkpoint, ok=False, error=str(exc), now=now)
    await records.update_checkpoint(scope, updated, budget.rounds_used)
    if transient and not budget.exhausted:
        raise SyncRetry(report.message)
    return {
        "checkpointId": checkpoint_id,
        "status": report.status.value,
        "failureKind": report.failure_kind.value if report.failure_kind else None,
        "message": report.message,
    }
