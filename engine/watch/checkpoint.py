"""`record_checkpoint` and the independent record sync (nd paragraph; docs/rules/watches.md).

Validation tells the fields apart ("按字段区分"): an unknown watch, no record location
chosen, verification incomplete, `data` of the wrong type or too long, `instructions` of
the wrong type or too long. An unknown watch is NotFound; every other problem is reported
together, each with its field and code.

Syncing the checkpoint to its record location is its own durable task with its own round
cap (`budget.RecordSyncBudget`). Its failure is reported as a record-sync failure and never
turns a successful source check into a failed one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any

from engine.errors import Conflict, InvalidInput, NotFound
from engine.watch.model import Checkpoint, Frozen, Outcome, OutcomeStatus, SyncStatus, Watch

MAX_DATA_CHARS = 8000
MAX_INSTRUCTIONS_CHARS = 2000


class CheckpointProblemCode(StrEnum):
    UNKNOWN_WATCH = "unknown_watch"
    NO_RECORD_LOCATION = "no_record_location"
    VERIFICATION_INCOMPLETE = "verification_incomplete"
    DATA_TYPE = "data_type"
    DATA_TOO_LONG = "data_too_long"
    INSTRUCTIONS_TYPE = "instructions_type"
    INSTRUCTIONS_TOO_LONG = "instructions_too_long"


class CheckpointProblem(Frozen):
    field: str
    code: CheckpointProblemCode
    message: str


def _data_problem(data: Any) -> CheckpointProblem | None:
    if not isinstance(data, dict):
        return CheckpointProblem(
            field="data",
            code=CheckpointProblemCode.DATA_TYPE,
            message=f"data must be a JSON object, got {type(data).__name__}",
        )
    try:
        size = len(json.dumps(data, ensure_ascii=False))
    except (TypeError, ValueError):
        return CheckpointProblem(
            field="data",
            code=CheckpointProblemCode.DATA_TYPE,
            message="data must contain only JSON values",
        )
    if size > MAX_DATA_CHARS:
        return CheckpointProblem(
            field="data",
            code=CheckpointProblemCode.DATA_TOO_LONG,
            message=f"data is {size} characters as JSON; at most {MAX_DATA_CHARS}",
        )
    return None


def _instructions_problem(instructions: Any) -> CheckpointProblem | None:
    if not isinstance(instructions, str):
        return CheckpointProblem(
            field="instructions",
            code=CheckpointProblemCode.INSTRUCTIONS_TYPE,
            message=f"instructions must be text, got {type(instructions).__name__}",
        )
    if len(instructions) > MAX_INSTRUCTIONS_CHARS:
        return CheckpointProblem(
            field="instructions",
            code=CheckpointProblemCode.INSTRUCTIONS_TOO_LONG,
            message=f"instructions are {len(instructions)} characters; at most "
            f"{MAX_INSTRUCTIONS_CHARS}",
        )
    return None


def record_checkpoint(
    raw: Mapping[str, Any],
    *,
    watches: Mapping[str, Watch],
    verification_complete: bool,
    run_id: str,
    checkpoint_id: str,
    now: datetime,
) -> Checkpoint:
    """Validate the tool arguments `{watchId, location?, data, instructions}`.

    `location` falls back to the watch's chosen record location. `verification_complete`
    is the caller's reading of `outcome.check_problems(...) == ()` for this run.
    """
    watch_id = raw.get("watchId", raw.get("watch_id"))
    watch = watches.get(watch_id) if isinstance(watch_id, str) else None
    if watch is None:
        raise NotFound(
            f"unknown watch {watch_id!r}",
            field="watchId",
            code=CheckpointProblemCode.UNKNOWN_WATCH.value,
        )
    problems: list[CheckpointProblem] = []
    location = raw.get("location")
    if not isinstance(location, str) or not location.strip():
        location = watch.record_location
    if not isinstance(location, str) or not location.strip():
        problems.append(
            CheckpointProblem(
                field="location",
                code=CheckpointProblemCode.NO_RECORD_LOCATION,
                message="no record location is chosen for this watch",
            )
        )
    if not verification_complete:
        problems.append(
            CheckpointProblem(
                field="verification",
                code=CheckpointProblemCode.VERIFICATION_INCOMPLETE,
                message="verification is incomplete; finish the check steps first",
            )
        )
    data = raw.get("data")
    instructions = raw.get("instructions")
    for problem in (_data_problem(data), _instructions_problem(instructions)):
        if problem is not None:
            problems.append(problem)
    if problems:
        raise InvalidInput(
            "checkpoint rejected: " + "; ".join(f"{p.field}: {p.message}" for p in problems),
            fields=[p.field for p in problems],
            problems=[p.model_dump(mode="json") for p in problems],
        )
    assert isinstance(location, str) and isinstance(data, dict) and isinstance(instructions, str)
    return Checkpoint(
        checkpoint_id=checkpoint_id,
        watch_id=watch.watch_id,
        run_id=run_id,
        location=location.strip(),
        data=data,
        instructions=instructions,
        recorded_at=now,
    )


# --- sync ---------------------------------------------------------------------------------


class FailureKind(StrEnum):
    SOURCE_CHECK = "source_check"
    RECORD_SYNC = "record_sync"


class SyncReport(Frozen):
    checkpoint_id: str
    status: SyncStatus
    failure_kind: FailureKind | None = None
    message: str = ""


def apply_sync_result(
    checkpoint: Checkpoint, *, ok: bool, error: str | None, now: datetime
) -> tuple[Checkpoint, SyncReport]:
    """Record what the sync task reported; a failure is a record-sync failure."""
    if checkpoint.sync_status is SyncStatus.SYNCED:
        raise Conflict(
            f"checkpoint {checkpoint.checkpoint_id} is already synced", reason="already_synced"
        )
    if ok:
        synced = checkpoint.model_copy(
            update={"sync_status": SyncStatus.SYNCED, "sync_error": None, "synced_at": now}
        )
        return synced, SyncReport(checkpoint_id=checkpoint.checkpoint_id, status=SyncStatus.SYNCED)
    message = f"record sync to {checkpoint.location} failed: {error or 'unknown error'}"
    failed = checkpoint.model_copy(
        update={"sync_status": SyncStatus.FAILED, "sync_error": error or "unknown error"}
    )
    report = SyncReport(
        checkpoint_id=checkpoint.checkpoint_id,
        status=SyncStatus.FAILED,
        failure_kind=FailureKind.RECORD_SYNC,
        message=message,
    )
    return failed, report


class RunReport(Frozen):
    """What a heartbeat run reports: the source check and the record sync, separately."""

    check_status: str
    sync_status: SyncStatus | None
    failure_kind: FailureKind | None
    message: str


def run_report(outcome: Outcome, sync: SyncReport | None) -> RunReport:
    if outcome.status is not OutcomeStatus.SUCCESS:
        return RunReport(
            check_status=outcome.status.value,
            sync_status=sync.status if sync is not None else None,
            failure_kind=FailureKind.SOURCE_CHECK,
            message="source check did not succeed: " + "; ".join(outcome.reasons),
        )
    if sync is not None and sync.status is SyncStatus.FAILED:
        return RunReport(
            check_status=outcome.status.value,
            sync_status=sync.status,
            failure_kind=FailureKind.RECORD_SYNC,
            message=sync.message,
        )
    return RunReport(
        check_status=outcome.status.value,
        sync_status=sync.status if sync is not None else None,
        failure_kind=None,
        message="source check succeeded",
    )
