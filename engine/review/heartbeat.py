"""Heartbeat runs: the report stage and the hand-over to supervision (docs/rules/reviews.md).

"心跳活动按真实运行 ID 关联下游监督。报告阶段使用 claimed / completed / failed / skipped /
no_change" and "两个阶段都在调用模型前检查输入。没有待处理来源时记录 no_change … 心跳报告无变化
仍进入受应用开关控制的下游检查，允许监督阶段重试之前的失败。"

- A scheduled run is queued with its timeout frozen (`claim_scheduled` returns None when the
  app is off) and is claimed only once its report holds a pool slot (`claim_granted`: again
  None when the app went off meanwhile); `run_plan_now` is a manual heartbeat, claimed when
  it is asked for, and is refused with `Disabled` when off.
- The report's timeout is frozen when the run is queued.
- `start_report`: nothing pending → no_change with no model call; otherwise `CallModel`.
- After completed or no_change the pool slot is released first, then the downstream
  supervision check is queued — only if the app is on at that moment. A run claimed before
  the app went off still finishes and saves; it just gets no automatic supervision.
- The report's own checkpoint (track `heartbeat_report`) advances with the report commit.
- The supervision run is linked by its real run id (`link_supervision`), never guessed.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from engine.errors import Conflict
from engine.review.checkpoints import Checkpoint, CheckpointKey, Selection, Track, advance_to
from engine.review.effects import CallModel, Decision, Effect, ReleaseSlot, StartSupervision
from engine.review.plans import DuePlan, HeartbeatPlan
from engine.review.settings import AppSettings, Work, admit
from engine.review.types import ReviewModel, Scope, Trigger


class HeartbeatState(StrEnum):
    CLAIMED = "claimed"
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"
    NO_CHANGE = "no_change"


class HeartbeatRun(ReviewModel):
    run_id: str
    config_id: str | None
    scope: Scope | None  # None: an old record whose scope was never saved (shown unavailable)
    trigger: Trigger
    slot: datetime | None = None
    worker_id: str | None = None
    state: HeartbeatState = HeartbeatState.CLAIMED
    claimed_at: datetime
    ended_at: datetime | None = None
    timeout: timedelta | None = None
    error: str | None = None
    report_id: str | None = None
    supervision_run_id: str | None = None
    # False for records from before links were stored: never joined to a supervision run.
    link_saved: bool = True

    @property
    def finished(self) -> bool:
        return self.state is not HeartbeatState.CLAIMED


def _new(
    plan: HeartbeatPlan,
    trigger: Trigger,
    slot: datetime | None,
    *,
    run_id: str,
    worker_id: str,
    now: datetime,
    timeout: timedelta,
) -> HeartbeatRun:
    return HeartbeatRun(
        run_id=run_id,
        config_id=plan.config_id,
        scope=plan.scope,
        trigger=trigger,
        slot=slot,
        worker_id=worker_id,
        claimed_at=now,
        timeout=timeout,
    )


def claim_scheduled(
    due: DuePlan,
    settings: AppSettings,
    *,
    run_id: str,
    worker_id: str,
    now: datetime,
    timeout: timedelta,
) -> HeartbeatRun | None:
    """The cron's queued beat of a due plan's slot, its timeout frozen; it is stored (claimed,
    under `due.claim_key`) only by `claim_granted` once its report holds a pool slot.
    None: app off."""
    if not admit(settings, Work.SCHEDULED_CLAIM) or not due.plan.enabled:
        return None
    return _new(
        due.plan,
        Trigger.AUTOMATIC,
        due.slot,
        run_id=run_id,
        worker_id=worker_id,
        now=now,
        timeout=timeout,
    )


def claim_granted(
    queued: HeartbeatRun, settings: AppSettings, *, now: datetime
) -> HeartbeatRun | None:
    """A queued scheduled beat, claimed now that its report holds a pool slot (获槽后领取):
    claimed at the grant, with the timeout frozen when it was queued. None: the app is off
    now, so nothing is claimed."""
    if not admit(settings, Work.SCHEDULED_CLAIM):
        return None
    return queued.model_copy(update={"claimed_at": now, "state": HeartbeatState.CLAIMED})


def run_plan_now(
    plan: HeartbeatPlan,
    settings: AppSettings,
    *,
    run_id: str,
    worker_id: str,
    now: datetime,
    timeout: timedelta,
) -> HeartbeatRun:
    """`runPlanNow`: a fresh report now; its supervision still follows automatic progress."""
    admit(settings, Work.MANUAL_HEARTBEAT)
    return _new(
        plan, Trigger.MANUAL, None, run_id=run_id, worker_id=worker_id, now=now, timeout=timeout
    )


def _require_claimed(run: HeartbeatRun, action: str) -> None:
    if run.state is not HeartbeatState.CLAIMED:
        raise Conflict(f"cannot {action} a {run.state.value} heartbeat run", run_id=run.run_id)


def _after_report(run: HeartbeatRun, settings: AppSettings) -> tuple[Effect, ...]:
    effects: list[Effect] = [ReleaseSlot(run_id=run.run_id)]
    if run.scope is not None and admit(settings, Work.FOLLOW_UP_SUPERVISION):
        effects.append(StartSupervision(heartbeat_run_id=run.run_id, scope=run.scope))
    return tuple(effects)


def start_report(
    run: HeartbeatRun, pending: Selection, settings: AppSettings, *, now: datetime
) -> Decision[HeartbeatRun]:
    """Check input before any model call: nothing pending → no_change, else call the model."""
    _require_claimed(run, "report on")
    if pending.no_change:
        done = run.model_copy(update={"state": HeartbeatState.NO_CHANGE, "ended_at": now})
        return Decision(done, _after_report(done, settings))
    return Decision(run, (CallModel(run_id=run.run_id, purpose="report"),))


class ReportCommit(ReviewModel):
    run: HeartbeatRun
    checkpoint: Checkpoint


def complete_report(
    run: HeartbeatRun,
    *,
    report_id: str,
    taken: Selection,
    checkpoint: Checkpoint,
    settings: AppSettings,
    now: datetime,
) -> Decision[ReportCommit]:
    """Commit the report with the report track's new position (one transaction)."""
    _require_claimed(run, "complete")
    if run.scope is None or checkpoint.key != CheckpointKey.of(Track.REPORT, run.scope):
        raise Conflict("a report advances its own scope's report checkpoint", run_id=run.run_id)
    done = run.model_copy(
        update={"state": HeartbeatState.COMPLETED, "report_id": report_id, "ended_at": now}
    )
    moved = advance_to(checkpoint, taken.included, now=now)
    return Decision(ReportCommit(run=done, checkpoint=moved), _after_report(done, settings))


def fail_report(run: HeartbeatRun, error: str, *, now: datetime) -> Decision[HeartbeatRun]:
    """Report failed: its input stays pending (the checkpoint does not move)."""
    _require_claimed(run, "fail")
    failed = run.model_copy(
        update={"state": HeartbeatState.FAILED, "error": error, "ended_at": now}
    )
    return Decision(failed, (ReleaseSlot(run_id=run.run_id),))


def skip_report(run: HeartbeatRun, reason: str, *, now: datetime) -> Decision[HeartbeatRun]:
    """Claimed but not worth running (its plan was disabled or deleted since)."""
    _require_claimed(run, "skip")
    skipped = run.model_copy(
        update={"state": HeartbeatState.SKIPPED, "error": reason, "ended_at": now}
    )
    return Decision(skipped, (ReleaseSlot(run_id=run.run_id),))


def link_supervision(run: HeartbeatRun, supervision_run_id: str) -> HeartbeatRun:
    """Store the real id of the supervision run this heartbeat led to."""
    if run.state not in (HeartbeatState.COMPLETED, HeartbeatState.NO_CHANGE):
        raise Conflict("only a finished report leads to supervision", run_id=run.run_id)
    if run.supervision_run_id == supervision_run_id:
        return run
    if run.supervision_run_id is not None:
        raise Conflict(
            "heartbeat already linked to another supervision run",
            run_id=run.run_id,
            linked=run.supervision_run_id,
        )
    return run.model_copy(update={"supervision_run_id": supervision_run_id, "link_saved": True})
