"""The record sync of check checkpoints: its own durable task (seed 000 续跑与版本 ¶2).

    sync_watch_checkpoint(ctx, scope=..., checkpoint_id=...)

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
from collections.abc import Callable
from datetime import datetime
from typing import Any

from arq.worker import Retry

from engine.clock import utcnow
from engine.errors import StorygraphError
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind as StorySourceKind
from engine.watch.budget import RecordSyncBudget, spend_sync_round
from engine.watch.checkpoint import apply_sync_result
from engine.watch.model import Checkpoint, SourceKey, SourceKind, SyncStatus
from graph.story.repository import StoryRepository
from graph.watch.catalogue import SourceCatalogue
from graph.watch.records import WatchRecords

RETRY_DEFER_SECONDS = 5


class SyncFailed(Exception):
    """The record location could not take the checkpoint."""


def render(checkpoint: Checkpoint) -> str:
    data = json.dumps(checkpoint.data, ensure_ascii=False, sort_keys=True)
    return (
        f"[checkpoint {checkpoint.checkpoint_id} · run {checkpoint.run_id} · "
        f"{checkpoint.recorded_at.isoformat()}]\n{checkpoint.instructions}\n{data}"
    )


async def write_to_location(
    ctx: dict[str, Any], scope: str, checkpoint: Checkpoint, now: datetime
) -> None:
    try:
        key = SourceKey.parse(checkpoint.location)
    except ValueError as exc:
        raise SyncFailed(f"unsupported record location {checkpoint.location!r}") from exc
    if key.kind is not SourceKind.NOTE:
        raise SyncFailed(f"record location {key.value} is not a note")
    database = ctx["settings"].neo4j_database
    current = await SourceCatalogue(ctx["driver"], database).current(scope, key.item_id)
    if current is None or current.text is None:
        raise SyncFailed(f"record note {key.value} does not exist in project {scope}")
    version = f"checkpoint-{checkpoint.checkpoint_id}"
    if current.revision == version:
        return
    await StoryRepository(ctx["driver"], database).upsert_source(
        SourceInput(
            scope=scope,
            id=key.item_id,
            kind=StorySourceKind.NOTE,
            title=current.title,
            version=version,
            text=f"{current.text}\n\n{render(checkpoint)}",
        ),
        recorded_at=now,
    )


async def sync_watch_checkpoint(
    ctx: dict[str, Any],
    *,
    scope: str,
    checkpoint_id: str,
    clock: Callable[[], datetime] = utcnow,
) -> dict[str, Any]:
    records = WatchRecords(ctx["driver"], ctx["settings"].neo4j_database)
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
    now = clock()
    transient = False
    try:
        await write_to_location(ctx, scope, checkpoint, now)
        updated, report = apply_sync_result(checkpoint, ok=True, error=None, now=now)
    except SyncFailed as exc:
        updated, report = apply_sync_result(checkpoint, ok=False, error=str(exc), now=now)
    except (StorygraphError, OSError) as exc:
        transient = True
        updated, report = apply_sync_result(checkpoint, ok=False, error=str(exc), now=now)
    await records.update_checkpoint(scope, updated, budget.rounds_used)
    if transient and not budget.exhausted:
        raise Retry(defer=RETRY_DEFER_SECONDS)
    return {
        "checkpointId": checkpoint_id,
        "status": report.status.value,
        "failureKind": report.failure_kind.value if report.failure_kind else None,
        "message": report.message,
    }
