"""Driving supervision runs: the next step, worker-start recovery, automatic continuation.

- `next_step(run)` tells the worker what to do next from the stored records alone, so a
  worker that picks up a run after a crash or a continue does exactly the missing work.
- `recover_on_worker_start` (docs/rules/reviews.md: "重开应用将没有完成的监督运行标为失败，旧成功
  结果保持可读"): running runs of dead workers become failed (worker_lost); runs of dead
  workers that were pausing or cancelling, or that died between the result transaction and
  recording the stop, are marked stopped. Paused runs stay paused and continuable; stopped
  ones are untouched.
- `choose_automatic` (docs/rules/reviews.md: "自动回顾等待占用释放，再检查未完成运行和增量来源"):
  once the automatic check has the lease, it continues the scope's latest automatic run if that one
  failed and its sources are unchanged, and otherwise starts a new run. A cancelled run is never
  resumed; the new run takes the sources it left uncommitted. A check delivered again after its
  worker died keeps to the run it already started (`linked`): one heartbeat, one supervision run.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from engine.review.checkpoints import (
    Checkpoint,
    Selection,
    SourceState,
    interval_segments,
    pending_segments,
)
from engine.review.lifecycle import (
    ErrorKind,
    ReviewMode,
    RunError,
    RunStatus,
    SupervisionRun,
    fail,
    mark_stopped,
    sources_changed,
)
from engine.review.manifest import navigation_root, next_pending
from engine.review.stages import StageState
from engine.review.types import InputBudget, ReviewModel, Scope, StageName, Trigger


class StepKind(StrEnum):
    COLLECT_PAGE = "collect_page"  # read the manifest page at `cursor`
    FINISH_COLLECT = "finish_collect"
    LEAF = "leaf"  # run the model on leaf batch `batch_index`
    FINISH_LEAVES = "finish_leaves"
    NAVIGATE = "navigate"  # build and commit navigation nodes up to a root
    FINISH_NAVIGATION = "finish_navigation"
    PUBLISH = "publish"
    STOP = "stop"  # paused, cancelled or published: stop executing, then `mark_stopped`
    DONE = "done"


class NextStep(ReviewModel):
    kind: StepKind
    cursor: str | None = None
    batch_index: int | None = None


def next_step(run: SupervisionRun) -> NextStep:
    if run.status is not RunStatus.RUNNING:
        return NextStep(kind=StepKind.DONE if run.stopped else StepKind.STOP)
    ledger = run.ledger
    for record in run.stages.records:
        if record.state is StageState.SAVED:
            continue
        if record.state is not StageState.RUNNING:
            break
        if record.stage is StageName.COLLECT:
            if ledger.manifest.complete:
                return NextStep(kind=StepKind.FINISH_COLLECT)
            return NextStep(kind=StepKind.COLLECT_PAGE, cursor=ledger.manifest.next_cursor)
        if record.stage is StageName.LEAVES:
            batch = next_pending(ledger)
            if batch is None:
                return NextStep(kind=StepKind.FINISH_LEAVES)
            return NextStep(kind=StepKind.LEAF, batch_index=batch.index)
        if record.stage is StageName.NAVIGATION:
            if navigation_root(ledger) is None:
                return NextStep(kind=StepKind.NAVIGATE)
            return NextStep(kind=StepKind.FINISH_NAVIGATION)
        return NextStep(kind=StepKind.PUBLISH)
    return NextStep(kind=StepKind.DONE)


def recover_on_worker_start(
    runs: Sequence[SupervisionRun], live_workers: Collection[str], *, now: datetime
) -> list[SupervisionRun]:
    """The runs that must be stored anew because their worker is gone."""
    changed: list[SupervisionRun] = []
    for run in runs:
        if run.stopped or run.worker_id in live_workers:
            continue
        if run.status is RunStatus.RUNNING:
            current = run.stages.current
            stage = current.stage if current else StageName.COLLECT
            error = RunError(stage=stage, kind=ErrorKind.WORKER_LOST, message="worker stopped")
            changed.append(fail(run, error, now=now).state)
        else:
            changed.append(mark_stopped(run, now=now).state)
    return changed


class AutomaticChoice(ReviewModel):
    continue_run_id: str | None = None  # None: start a new run, unless `settled`
    settled: bool = False  # the heartbeat's own run stays as it stands: nothing is started


def choose_automatic(
    runs: Sequence[SupervisionRun],
    scope: Scope,
    current_versions: Mapping[str, str],
    *,
    linked: SupervisionRun | None = None,
) -> AutomaticChoice:
    """`linked`: the run this heartbeat's check already led to, when the check is delivered
    again (its worker died after starting it). That run is the check's one run: it continues
    when it failed with its sources unchanged, and otherwise stays as it stands (a run a
    person paused stays paused); no second run is started for one heartbeat."""
    if linked is not None:
        if _continuable(linked, current_versions):
            return AutomaticChoice(continue_run_id=linked.run_id)
        return AutomaticChoice(settled=True)
    mine = [
        r
        for r in runs
        if r.scope.key == scope.key
        and r.trigger is Trigger.AUTOMATIC
        and r.mode is ReviewMode.INCREMENTAL
    ]
    if not mine:
        return AutomaticChoice()
    latest = max(mine, key=lambda r: r.created_at)
    if _continuable(latest, current_versions):
        return AutomaticChoice(continue_run_id=latest.run_id)
    return AutomaticChoice()


def _continuable(run: SupervisionRun, current_versions: Mapping[str, str]) -> bool:
    return (
        run.status is RunStatus.FAILED
        and run.stopped
        and not sources_changed(run, current_versions)
    )


def select_input(
    run: SupervisionRun,
    states: Sequence[SourceState],
    *,
    checkpoint: Checkpoint | None,
    window: timedelta,
    per_run: int | None,
    now: datetime,
) -> Selection:
    """What a run reads: its interval (blind to automatic progress), or what its supervision
    checkpoint has not covered within `window` (`checkpoint` is asked for then)."""
    budget = InputBudget(per_batch=run.per_batch, per_run=per_run)
    if run.mode is ReviewMode.INTERVAL:
        assert run.interval_start is not None and run.interval_end is not None
        return interval_segments(
            states, scope=run.scope, start=run.interval_start, end=run.interval_end, budget=budget
        )
    assert checkpoint is not None
    return pending_segments(
        checkpoint, states, scope=run.scope, window=window, budget=budget, now=now
    )
