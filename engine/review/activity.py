"""Activity: one row per heartbeat with its downstream supervision (docs/rules/reviews.md).

"报告阶段使用 claimed / completed / failed / skipped / no_change，活动将 claimed 显示为运行中。
报告已结束而投影尚在执行时，整条活动仍为运行中；任一阶段失败，整条活动显示失败。两阶段都没有新
输入时显示‘无变化（未调用模型）’；任一阶段保存新结果且没有失败时显示完成。没有下游运行记录时明确
显示‘无执行记录’。" Also: old heartbeats and supervision runs without a saved link are shown
apart and never joined by time; an old heartbeat's unsaved scope shows as unavailable (never
taken from the current plan); a cancelled supervision shows on its heartbeat's row while the
saved report keeps its own state.

`heartbeat_row` joins by saved run ids only; `build_activity` makes every row of a set of
records. Pages are read in the database (`cypher/review/activity_page.cypher`, newest first
by (started at, row id)); `ActivityFilter.matches` keeps the rows of the asked statuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum

from engine.language.lang import Lang
from engine.review.heartbeat import HeartbeatRun, HeartbeatState
from engine.review.lifecycle import DisplayStatus, RunOutcome, SupervisionRun
from engine.review.types import ReviewModel


class ActivityStatus(StrEnum):
    RUNNING = "running"
    CANCELLING = "cancelling"
    CANCELLED = "cancelled"
    PAUSED = "paused"
    FAILED = "failed"
    SKIPPED = "skipped"
    NO_CHANGE = "no_change"
    COMPLETED = "completed"
    PARTIAL = "partial"  # completed, but some input could not be read (docs/rules/reviews.md)
    NO_RECORD = "no_record"


LABELS: dict[Lang, dict[ActivityStatus, str]] = {
    "zh": {
        ActivityStatus.RUNNING: "运行中",
        ActivityStatus.CANCELLING: "正在取消",
        ActivityStatus.CANCELLED: "已取消",
        ActivityStatus.PAUSED: "已暂停",
        ActivityStatus.FAILED: "失败",
        ActivityStatus.SKIPPED: "已跳过",
        ActivityStatus.NO_CHANGE: "无变化（未调用模型）",
        ActivityStatus.COMPLETED: "完成",
        ActivityStatus.PARTIAL: "部分完成（有来源未能读取）",
        ActivityStatus.NO_RECORD: "无执行记录",
    },
    "en": {
        ActivityStatus.RUNNING: "Running",
        ActivityStatus.CANCELLING: "Cancelling",
        ActivityStatus.CANCELLED: "Cancelled",
        ActivityStatus.PAUSED: "Paused",
        ActivityStatus.FAILED: "Failed",
        ActivityStatus.SKIPPED: "Skipped",
        ActivityStatus.NO_CHANGE: "No change (model not called)",
        ActivityStatus.COMPLETED: "Completed",
        ActivityStatus.PARTIAL: "Partial (some sources could not be read)",
        ActivityStatus.NO_RECORD: "No execution record",
    },
}
SCOPE_UNAVAILABLE: dict[Lang, str] = {"zh": "不可用", "en": "Unavailable"}


def label(status: ActivityStatus, lang: Lang = "zh") -> str:
    return LABELS[lang][status]


_REPORT = {
    HeartbeatState.CLAIMED: ActivityStatus.RUNNING,
    HeartbeatState.COMPLETED: ActivityStatus.COMPLETED,
    HeartbeatState.FAILED: ActivityStatus.FAILED,
    HeartbeatState.SKIPPED: ActivityStatus.SKIPPED,
    HeartbeatState.NO_CHANGE: ActivityStatus.NO_CHANGE,
}


def report_status(run: HeartbeatRun) -> ActivityStatus:
    return _REPORT[run.state]


def supervision_status(run: SupervisionRun | None) -> ActivityStatus:
    if run is None:
        return ActivityStatus.NO_RECORD
    shown = run.display_status
    if shown is DisplayStatus.PARTIAL:
        return ActivityStatus.PARTIAL
    if shown is DisplayStatus.COMPLETED:
        if not run.complete:  # never shown complete while something was missed
            return ActivityStatus.PARTIAL
        if run.outcome is RunOutcome.NO_CHANGE:
            return ActivityStatus.NO_CHANGE
        return ActivityStatus.COMPLETED
    return ActivityStatus(shown.value)


def overall_status(
    report: ActivityStatus | None, supervision: ActivityStatus | None
) -> ActivityStatus:
    """The row's status from its stages, the most pressing first: cancelling, running,
    failed, the supervision's cancelled / paused / partial, no change when every stage had
    none, completed, no record, skipped."""
    stages = [s for s in (report, supervision) if s is not None]
    if supervision is ActivityStatus.CANCELLING:
        return ActivityStatus.CANCELLING
    if ActivityStatus.RUNNING in stages:
        return ActivityStatus.RUNNING
    if ActivityStatus.FAILED in stages:
        return ActivityStatus.FAILED
    if supervision in (ActivityStatus.CANCELLED, ActivityStatus.PAUSED):
        return supervision
    if supervision is ActivityStatus.PARTIAL:
        return ActivityStatus.PARTIAL
    if stages and all(s is ActivityStatus.NO_CHANGE for s in stages):
        return ActivityStatus.NO_CHANGE
    if ActivityStatus.COMPLETED in stages:
        return ActivityStatus.COMPLETED
    if supervision is ActivityStatus.NO_RECORD:
        return ActivityStatus.NO_RECORD
    if report is ActivityStatus.SKIPPED and supervision in (None, ActivityStatus.SKIPPED):
        return ActivityStatus.SKIPPED
    return ActivityStatus.NO_CHANGE


class Activity(ReviewModel):
    id: str
    started_at: datetime
    status: ActivityStatus
    heartbeat_run_id: str | None = None
    supervision_run_id: str | None = None
    config_id: str | None = None
    scope_key: str | None = None  # None: not saved with an old record → shown unavailable
    report: ActivityStatus | None = None
    supervision: ActivityStatus | None = None  # None: unknown (old heartbeat without link)
    result_id: str | None = None  # results are addressed by id, never by position
    missed: int = 0  # ranges the supervision run could not read (status partial then)
    unlinked: bool = False  # an old record shown on its own

    def label(self, lang: Lang = "zh") -> str:
        return label(self.status, lang)

    def scope_label(self, lang: Lang = "zh") -> str:
        return self.scope_key if self.scope_key is not None else SCOPE_UNAVAILABLE[lang]


def _supervision_row(run: SupervisionRun, *, unlinked: bool) -> Activity:
    status = supervision_status(run)
    return Activity(
        id=f"supervision:{run.run_id}",
        started_at=run.created_at,
        status=overall_status(None, status),
        supervision_run_id=run.run_id,
        scope_key=run.scope.key,
        supervision=status,
        result_id=run.published_result_id,
        missed=len(run.missed),
        unlinked=unlinked,
    )


def heartbeat_row(hb: HeartbeatRun, supervisions: Sequence[SupervisionRun]) -> Activity:
    """A heartbeat's row, joined to the supervision run among `supervisions` that one of them
    saved the other's real run id with (the heartbeat's saved link first)."""
    sup: SupervisionRun | None = None
    if hb.supervision_run_id is not None:
        sup = next((s for s in supervisions if s.run_id == hb.supervision_run_id), None)
    if sup is None:
        sup = next((s for s in supervisions if s.heartbeat_run_id == hb.run_id), None)
    report = report_status(hb)
    linked = hb.link_saved or sup is not None
    supervision = supervision_status(sup) if linked else None
    return Activity(
        id=f"heartbeat:{hb.run_id}",
        started_at=hb.claimed_at,
        status=overall_status(report, supervision),
        heartbeat_run_id=hb.run_id,
        supervision_run_id=sup.run_id if sup else None,
        config_id=hb.config_id,
        scope_key=hb.scope.key if hb.scope is not None else None,
        report=report,
        supervision=supervision,
        result_id=sup.published_result_id if sup else None,
        missed=len(sup.missed) if sup else 0,
        unlinked=not linked,
    )


def supervision_row(run: SupervisionRun) -> Activity:
    """A supervision run no heartbeat shares a row with; unlinked when it saved no heartbeat."""
    return _supervision_row(run, unlinked=run.heartbeat_run_id is None)


def activity_rows(
    records: Sequence[HeartbeatRun | SupervisionRun], joined: Sequence[SupervisionRun]
) -> list[Activity]:
    """The rows of a page's records, in their order: a heartbeat with the run among `joined`
    it shares a row with, a supervision run on its own."""
    return [
        heartbeat_row(r, joined) if isinstance(r, HeartbeatRun) else supervision_row(r)
        for r in records
    ]


def build_activity(
    heartbeats: Sequence[HeartbeatRun], supervisions: Sequence[SupervisionRun]
) -> list[Activity]:
    """Rows newest first. A heartbeat and a supervision run share a row only when one of them
    saved the other's real run id."""
    rows = [heartbeat_row(hb, supervisions) for hb in heartbeats]
    joined = {r.supervision_run_id for r in rows if r.supervision_run_id is not None}
    rows += [supervision_row(run) for run in supervisions if run.run_id not in joined]
    rows.sort(key=lambda r: (r.started_at, r.id), reverse=True)
    return rows


class ActivityFilter(ReviewModel):
    statuses: frozenset[ActivityStatus] | None = None
    scope_key: str | None = None
    config_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def matches(self, row: Activity) -> bool:
        return (
            (self.statuses is None or row.status in self.statuses)
            and (self.scope_key is None or row.scope_key == self.scope_key)
            and (self.config_id is None or row.config_id == self.config_id)
            and (self.since is None or row.started_at >= self.since)
            and (self.until is None or row.started_at < self.until)
        )
