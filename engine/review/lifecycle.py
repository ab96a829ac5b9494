"""The supervision run and its lifecycle (FR-S10, US-S26; docs/rules/reviews.md).

States: running | paused | failed | cancelled | completed; `cancelling` is derived (cancelled
while execution or cleanup has not stopped yet). Allowed transitions:

    running  -> paused | failed | cancelled | completed
    paused   -> running (continue) | cancelled
    failed   -> running (continue)
    cancelled, completed: final

- A run is created `running`, with collect already marked running, so it is stored before
  any source is read ("监督运行在收集证据之前保存 running").
- `completed` with a result only through `publish`, the result transaction, which also
  advances the automatic checkpoint; collect finding nothing pending completes the run as
  no_change without a model call and without publishing.
- A published run reads `completed` (and shows its result id) only once a LATER transaction
  has recorded it stopped (`mark_stopped`, by the worker right after the result transaction,
  or by recovery when that worker died). Neo4j applies a committed transaction's records
  before its index entries, so a reader could see the run's new status while the result it
  names is not yet found by id; a transaction that starts after the
  result transaction returned sees all of it.
- A failure in collect, model, validation or save → `failed` with the error and end time;
  committed batches stay, and the run may be continued while its sources are unchanged
  ("来源变更目前要求重新回顾").
- `pause` → paused, continuable. `cancel` → cancelled at once; nothing partial is published,
  the checkpoint does not move, and the run can never be continued (not by a person, not by
  an automatic check).
Worker-start recovery and the automatic continue-or-start choice live in
`engine.review.runner`.
Anything else raises `Conflict`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from enum import StrEnum

from engine.errors import Conflict
from engine.review import stages as st
from engine.review.checkpoints import Checkpoint, CheckpointKey, Track, advance
from engine.review.effects import Decision, ReleaseLease, StopExecution
from engine.review.manifest import (
    Ledger,
    ManifestPage,
    NavigationNode,
    SourceManifest,
    add_page,
    commit_batch,
    commit_node,
    committed_ranges,
    plan_leaves,
    resume,
)
from engine.review.outputs import InvalidModelOutput
from engine.review.types import MissedRange, ReviewModel, Scope, Segment, StageName, Trigger


class RunStatus(StrEnum):
    RUNNING = "running"
    PAUSED = "paused"
    FAILED = "failed"
    CANCELLED = "cancelled"
    COMPLETED = "completed"


class DisplayStatus(StrEnum):
    RUNNING = "running"
    PAUSED = "paused"
    FAILED = "failed"
    CANCELLING = "cancelling"
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    # completed with input it should have read and could not (a source withdrawn, gone or
    # unrecoverable): never shown as completed (docs/rules/review-status.md)
    PARTIAL = "partial"


class ReviewMode(StrEnum):
    INCREMENTAL = "incremental"  # automatic progress: reads and advances the checkpoint
    INTERVAL = "interval"  # manual re-review of a chosen interval: never touches it


class ErrorKind(StrEnum):
    COLLECT = "collect"
    MODEL = "model"
    VALIDATION = "validation"
    SAVE = "save"
    WORKER_LOST = "worker_lost"
    TIMEOUT = "timeout"


class RunError(ReviewModel):
    stage: StageName
    kind: ErrorKind
    message: str
    raw_output: str | None = None  # the model's answer that failed validation, verbatim

    @classmethod
    def from_invalid_output(cls, exc: InvalidModelOutput) -> RunError:
        return cls(
            stage=exc.stage,
            kind=ErrorKind.VALIDATION,
            message="; ".join(exc.problems) or exc.message,
            raw_output=exc.raw_output,
        )


class RunOutcome(StrEnum):
    NEW_RESULT = "new_result"
    NO_CHANGE = "no_change"
    # read text an earlier result already organised and found nothing new: every fact is a
    # stored event and signal, every entity and relation as stored (docs/rules/once.md)
    REPEAT = "repeat"


class SupervisionRun(ReviewModel):
    run_id: str
    scope: Scope
    trigger: Trigger
    mode: ReviewMode
    interval_start: datetime | None = None
    interval_end: datetime | None = None
    heartbeat_run_id: str | None = None  # the real id of the heartbeat run that led here
    worker_id: str
    status: RunStatus = RunStatus.RUNNING
    stopped: bool = False  # execution and cleanup have stopped
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None = None
    error: RunError | None = None
    outcome: RunOutcome | None = None
    result_id: str | None = None
    stage_timeout: timedelta  # fixed at creation; counts from when a stage gets a pool slot
    per_batch: int
    stages: st.StageBook = st.StageBook()
    ledger: Ledger = Ledger(manifest=SourceManifest())
    # input it should have read and could not (docs/rules/reviews.md): a run with any is
    # never presented as complete, nor is its result
    missed: tuple[MissedRange, ...] = ()
    pause_reason: str | None = None  # why the service paused it (a person's pause has none)

    @property
    def complete(self) -> bool:
        """Everything the run should have read was read."""
        return not self.missed

    def covered(self) -> list[Segment]:
        """The ranges committed batches read (merged per source version), less those whose
        text was gone when read."""
        covered: list[Segment] = []
        for (sid, version), ranges in sorted(committed_ranges(self.ledger).items()):
            gone = [(m.start, m.end) for m in self.missed if m.source_key == (sid, version)]
            for start, end in ranges:
                for a, b in _less(start, end, gone):
                    covered.append(Segment(source_id=sid, version=version, start=a, end=b))
        return covered

    @property
    def display_status(self) -> DisplayStatus:
        if self.status is RunStatus.CANCELLED and not self.stopped:
            return DisplayStatus.CANCELLING
        if self.status is RunStatus.COMPLETED and not self.stopped:
            return DisplayStatus.RUNNING  # its result transaction may still be applying
        if self.status is RunStatus.COMPLETED and not self.complete:
            return DisplayStatus.PARTIAL
        return DisplayStatus(self.status.value)

    @property
    def published_result_id(self) -> str | None:
        """The result id, once the run reads completed or partial (its result can be read by
        then; a partial one is published as not complete)."""
        done = (DisplayStatus.COMPLETED, DisplayStatus.PARTIAL)
        return self.result_id if self.display_status in done else None

    @property
    def blocks_new_review(self) -> bool:
        """Running, or stopping (cancelling/pausing cleanup not yet done)."""
        return not self.stopped


def _conflict(run: SupervisionRun, action: str) -> Conflict:
    return Conflict(
        f"cannot {action} a {run.display_status.value} run",
        run_id=run.run_id,
        status=run.status.value,
    )


def _update(run: SupervisionRun, now: datetime, **changes: object) -> SupervisionRun:
    return run.model_copy(update={**changes, "updated_at": now})


def create_run(
    *,
    run_id: str,
    scope: Scope,
    trigger: Trigger,
    mode: ReviewMode,
    worker_id: str,
    per_batch: int,
    stage_timeout: timedelta,
    now: datetime,
    heartbeat_run_id: str | None = None,
    interval: tuple[datetime, datetime] | None = None,
) -> SupervisionRun:
    """A new run, stored `running` before collecting (the shell saves it first)."""
    if (mode is ReviewMode.INTERVAL) != (interval is not None):
        raise Conflict("an interval review needs an interval; an incremental one takes none")
    start, end = interval if interval else (None, None)
    return SupervisionRun(
        run_id=run_id,
        scope=scope,
        trigger=trigger,
        mode=mode,
        interval_start=start,
        interval_end=end,
        heartbeat_run_id=heartbeat_run_id,
        worker_id=worker_id,
        created_at=now,
        updated_at=now,
        stage_timeout=stage_timeout,
        per_batch=per_batch,
        stages=st.start_stage(st.StageBook(), StageName.COLLECT, now=now),
    )


def _require_running(run: SupervisionRun, action: str) -> None:
    if run.status is not RunStatus.RUNNING:
        raise _conflict(run, action)


def _less(start: int, end: int, holes: Iterable[tuple[int, int | None]]) -> list[tuple[int, int]]:
    """[start, end) less the holes (end None: to the end of the version)."""
    parts = [(start, end)]
    for h_start, h_end in holes:
        stop = end if h_end is None else h_end
        parts = [
            piece
            for a, b in parts
            for piece in ((a, min(b, h_start)), (max(a, stop), b))
            if piece[0] < piece[1]
        ]
    return parts


def _with_missed(run: SupervisionRun, missed: Iterable[MissedRange]) -> tuple[MissedRange, ...]:
    """The run's missed ranges with `missed` added: touching ranges of one source version
    missed for the same reason merge into one."""
    ranges = sorted({*run.missed, *missed}, key=lambda m: (m.source_key, m.reason, m.start))
    merged: list[MissedRange] = []
    for m in ranges:
        last = merged[-1] if merged else None
        if (
            last is not None
            and (last.source_key, last.reason) == (m.source_key, m.reason)
            and last.end is not None
            and m.start <= last.end
        ):
            end = None if m.end is None else max(last.end, m.end)
            merged[-1] = last.model_copy(update={"end": end})
        else:
            merged.append(m)
    return tuple(merged)


def add_manifest_page(
    run: SupervisionRun, page: ManifestPage, *, now: datetime, missed: Iterable[MissedRange] = ()
) -> SupervisionRun:
    """One collected page; `missed`: input of the run's selection that cannot be read."""
    _require_running(run, "collect for")
    manifest = add_page(run.ledger.manifest, page)
    return _update(
        run,
        now,
        ledger=run.ledger.model_copy(update={"manifest": manifest}),
        missed=_with_missed(run, missed),
    )


def finish_collect(run: SupervisionRun, *, now: datetime) -> Decision[SupervisionRun]:
    """End of collect: nothing pending → completed as no_change (no model call); otherwise
    plan the leaf batches and start the leaves stage."""
    _require_running(run, "finish collecting")
    manifest = run.ledger.manifest
    if not manifest.complete:
        raise Conflict("collect has unread manifest pages", run_id=run.run_id)
    if not manifest.segments:
        done = _update(
            run,
            now,
            stages=st.record_no_input(run.stages, now=now),
            status=RunStatus.COMPLETED,
            outcome=RunOutcome.NO_CHANGE,
            stopped=True,
            ended_at=now,
        )
        return Decision(done, (ReleaseLease(run_id=run.run_id),))
    ledger = plan_leaves(manifest, run.per_batch)
    stages = st.finish_collect(run.stages, ledger, now=now)
    stages = st.start_stage(stages, StageName.LEAVES, now=now)
    return Decision(_update(run, now, ledger=ledger, stages=stages))


def commit_leaf(
    run: SupervisionRun,
    index: int,
    output_id: str,
    *,
    now: datetime,
    missed: Iterable[MissedRange] = (),
) -> SupervisionRun:
    """One leaf batch's output and offsets, committed on their own. A batch already in flight
    when the run was paused may still land; after cancel nothing more is committed.
    `missed`: segments of the batch whose text was gone when read."""
    if not (
        run.status is RunStatus.RUNNING or (run.status is RunStatus.PAUSED and not run.stopped)
    ):
        raise _conflict(run, "commit a batch of")
    return _update(
        run,
        now,
        ledger=commit_batch(run.ledger, index, output_id, now=now),
        missed=_with_missed(run, missed),
    )


def finish_leaves(run: SupervisionRun, *, now: datetime) -> SupervisionRun:
    _require_running(run, "finish the leaves of")
    stages = st.finish_leaves(run.stages, run.ledger, now=now)
    return _update(run, now, stages=st.start_stage(stages, StageName.NAVIGATION, now=now))


def commit_navigation_node(
    run: SupervisionRun, node: NavigationNode, *, now: datetime
) -> SupervisionRun:
    _require_running(run, "commit navigation for")
    return _update(run, now, ledger=commit_node(run.ledger, node))


def finish_navigation(run: SupervisionRun, *, now: datetime) -> SupervisionRun:
    _require_running(run, "finish navigation of")
    stages = st.finish_navigation(run.stages, run.ledger, now=now)
    return _update(run, now, stages=st.start_stage(stages, StageName.PUBLISH, now=now))


class Published(ReviewModel):
    """Everything the publish transaction writes at once: result, run, checkpoint."""

    run: SupervisionRun
    checkpoint: Checkpoint | None


def publish(
    run: SupervisionRun,
    *,
    result_id: str,
    checkpoint: Checkpoint | None,
    now: datetime,
    repeat: bool = False,
) -> Published:
    """The result transaction: the only way to `completed` with a result, and the only place
    the automatic checkpoint advances (incremental runs; interval runs pass None). The run
    is not yet stopped: it reads completed once `mark_stopped` has recorded that in a later
    transaction (see the module note). `repeat`: the result adds nothing the graph did not
    hold (outcome `repeat`)."""
    _require_running(run, "publish")
    stages = st.record_publish(run.stages, run.ledger, now=now)
    new_checkpoint: Checkpoint | None = None
    if run.mode is ReviewMode.INCREMENTAL:
        expected = CheckpointKey.of(Track.SUPERVISION, run.scope)
        if checkpoint is None or checkpoint.key != expected:
            raise Conflict("publish needs this scope's supervision checkpoint", run_id=run.run_id)
        new_checkpoint = advance(checkpoint, run.ledger, now=now)
    elif checkpoint is not None:
        raise Conflict("a manual interval review neither reads nor moves automatic progress")
    done = _update(
        run,
        now,
        stages=stages,
        status=RunStatus.COMPLETED,
        outcome=RunOutcome.REPEAT if repeat else RunOutcome.NEW_RESULT,
        result_id=result_id,
        ended_at=now,
    )
    return Published(run=done, checkpoint=new_checkpoint)


def fail(run: SupervisionRun, error: RunError, *, now: datetime) -> Decision[SupervisionRun]:
    """A failure in collect, model, validation or save: failed, with error and end time."""
    if run.status is RunStatus.CANCELLED:
        # a failure while a cancelled run cleans up ends the cleanup; it stays cancelled
        return mark_stopped(run, now=now)
    _require_running(run, "fail")
    stages = st.fail_stage(run.stages, error.stage, error.message, now=now)
    failed = _update(
        run, now, stages=stages, status=RunStatus.FAILED, error=error, stopped=True, ended_at=now
    )
    return Decision(failed, (ReleaseLease(run_id=run.run_id),))


def pause(
    run: SupervisionRun, *, now: datetime, reason: str | None = None
) -> Decision[SupervisionRun]:
    if run.status is RunStatus.PAUSED:
        return Decision(run)
    _require_running(run, "pause")
    paused = _update(run, now, status=RunStatus.PAUSED, pause_reason=reason)
    return Decision(paused, (StopExecution(run_id=run.run_id),))


def cancel(run: SupervisionRun, *, now: datetime) -> Decision[SupervisionRun]:
    """Stored cancelled at once; reads as cancelling until execution and cleanup stop."""
    if run.status is RunStatus.CANCELLED:
        return Decision(run)
    if run.status not in (RunStatus.RUNNING, RunStatus.PAUSED):
        raise _conflict(run, "cancel")
    if run.stopped:  # a stopped paused run: nothing to wait for
        return Decision(_update(run, now, status=RunStatus.CANCELLED, ended_at=now))
    return Decision(
        _update(run, now, status=RunStatus.CANCELLED), (StopExecution(run_id=run.run_id),)
    )


def mark_stopped(run: SupervisionRun, *, now: datetime) -> Decision[SupervisionRun]:
    """The executing worker has stopped (after pause, cancel or the result transaction):
    release the lease."""
    if run.stopped:
        return Decision(run)
    if run.status not in (RunStatus.PAUSED, RunStatus.CANCELLED, RunStatus.COMPLETED):
        raise _conflict(run, "mark stopped")
    ended = now if run.status is RunStatus.CANCELLED else run.ended_at
    stopped = _update(run, now, stopped=True, ended_at=ended)
    return Decision(stopped, (ReleaseLease(run_id=run.run_id),))


def sources_changed(run: SupervisionRun, current_versions: Mapping[str, str]) -> list[str]:
    return sorted(
        {
            s.source_id
            for s in run.ledger.manifest.segments
            if current_versions.get(s.source_id) != s.version
        }
    )


def continue_run(
    run: SupervisionRun,
    *,
    worker_id: str,
    current_versions: Mapping[str, str],
    now: datetime,
) -> SupervisionRun:
    """`continueReview`: the same run picks up where its committed records end."""
    if run.status not in (RunStatus.PAUSED, RunStatus.FAILED) or not run.stopped:
        raise _conflict(run, "continue")
    changed = sources_changed(run, current_versions)
    if changed:
        raise Conflict("sources changed since this run; start a new review", sources=changed)
    stages = run.stages
    for record in stages.records:
        if record.state is st.StageState.SAVED:
            continue
        if record.state is not st.StageState.RUNNING:
            stages = st.start_stage(stages, record.stage, now=now)
        break
    return _update(
        run,
        now,
        status=RunStatus.RUNNING,
        stopped=False,
        worker_id=worker_id,
        error=None,
        pause_reason=None,
        ended_at=None,
        stages=stages,
        ledger=resume(run.ledger),
    )
