"""GraphQL types of the supervision reviews (docs/rules/reviews.md), each built from its engine
model."""

from __future__ import annotations

from datetime import datetime, timedelta

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import build
from api.definitions.cost import RunCost, resolve_run_cost
from api.definitions.story_types import SourceRange
from engine.language.lang import Lang
from engine.review import activity as act
from engine.review.compose import ledger_scope
from engine.review.heartbeat import HeartbeatRun as HeartbeatRunModel
from engine.review.lifecycle import SupervisionRun as RunModel
from engine.review.plans import HeartbeatPlan
from engine.review.stages import progress
from engine.review.types import MissedRange, Scope, Segment
from engine.scope import GLOBAL


@strawberry.type
class ReviewScope:
    key: str
    is_global: bool
    project_ids: list[str]

    @classmethod
    def from_model(cls, scope: Scope) -> ReviewScope:
        return build(cls, scope, project_ids=list(scope.project_ids))


@strawberry.input
class ReviewScopeInput:
    is_global: bool = False
    project_ids: list[str] = strawberry.field(default_factory=list)

    def to_model(self) -> Scope:
        return Scope(is_global=self.is_global, project_ids=tuple(self.project_ids))


def source_range(r: Segment | MissedRange) -> SourceRange:
    reason = r.reason.value if isinstance(r, MissedRange) else None
    return SourceRange(
        source_id=r.source_id, version=r.version, start=r.start, end=r.end, reason=reason
    )


@strawberry.type
class AppSettings:
    heartbeat_enabled: bool


@strawberry.type
class Plan:
    config_id: str
    name: str
    scope: ReviewScope
    enabled: bool
    every_seconds: float
    anchor: datetime
    window_seconds: float
    per_batch: int
    per_run: int | None
    created_at: datetime
    updated_at: datetime
    retention_seconds: float = strawberry.field(
        description="How long finished heartbeat runs and their reports are kept; an hourly "
        "cron removes older ones (never the source progress, runs or results)."
    )

    @classmethod
    def from_model(cls, p: HeartbeatPlan) -> Plan:
        return build(
            cls,
            p,
            scope=ReviewScope.from_model(p.scope),
            every_seconds=p.schedule.every.total_seconds(),
            anchor=p.schedule.anchor,
            window_seconds=p.window.total_seconds(),
            per_batch=p.budget.per_batch,
            per_run=p.budget.per_run,
            retention_seconds=p.retention.total_seconds(),
        )


@strawberry.input
class PlanInput:
    """A plan draft; `configId` null creates a new plan (saved enabled), else edits that one."""

    config_id: str | None = None
    name: str
    scope: ReviewScopeInput
    every_seconds: float
    anchor: datetime
    window_seconds: float
    per_batch: int = 4000
    per_run: int | None = None
    retention_seconds: float | None = strawberry.field(
        default=None, description="Report history kept; null: 30 days, at least 1 hour."
    )

    def to_data(self) -> dict[str, object]:
        retention = (
            {}
            if self.retention_seconds is None
            else {"retention": timedelta(seconds=self.retention_seconds)}
        )
        return {
            **retention,
            "config_id": self.config_id,
            "name": self.name,
            "scope": self.scope.to_model(),
            "schedule": {"every": timedelta(seconds=self.every_seconds), "anchor": self.anchor},
            "window": timedelta(seconds=self.window_seconds),
            "budget": {"per_batch": self.per_batch, "per_run": self.per_run},
        }


@strawberry.type
class HeartbeatRun:
    id: str
    config_id: str | None
    state: str
    trigger: str
    claimed_at: datetime
    ended_at: datetime | None
    supervision_run_id: str | None
    error: str | None
    report: str | None = strawberry.field(
        default=None, description="The report text, once the report is done (null before)."
    )

    @classmethod
    def from_model(cls, r: HeartbeatRunModel, report: str | None = None) -> HeartbeatRun:
        return build(
            cls, r, id=r.run_id, state=r.state.value, trigger=r.trigger.value, report=report
        )


@strawberry.type
class StageProgress:
    stage: str
    state: str
    done: int
    total: int | None
    error: str | None
    started_at: datetime | None
    ended_at: datetime | None


@strawberry.type
class ReviewBatch:
    index: int
    state: str
    size: int
    sources: list[str]
    output_id: str | None
    committed_at: datetime | None
    attempts: int
    error: str | None


@strawberry.type
class RunErrorInfo:
    stage: str
    kind: str
    message: str
    raw_output: str | None


@strawberry.type
class RunProgress:
    run_id: str
    status: str
    fraction: float
    stages: list[StageProgress]


@strawberry.type
class SupervisionRun:
    id: str
    scope: ReviewScope
    trigger: str
    mode: str
    status: str  # running | paused | failed | cancelling | cancelled | completed | partial
    outcome: str | None
    heartbeat_run_id: str | None
    result_id: str | None
    created_at: datetime
    ended_at: datetime | None
    interval_start: datetime | None
    interval_end: datetime | None
    error: RunErrorInfo | None
    stages: list[StageProgress]
    batches: list[ReviewBatch]
    fraction: float
    complete: bool = strawberry.field(
        default=True,
        description="False when some input could not be read (missed lists it); its result "
        "is then published as not complete either.",
    )
    covered: list[SourceRange] = strawberry.field(default_factory=list)
    missed: list[SourceRange] = strawberry.field(default_factory=list)
    pause_reason: str | None = strawberry.field(
        default=None,
        description="Why the service paused it (e.g. its token budget); none for a person's pause.",
    )
    story_scope: strawberry.Private[str] = GLOBAL  # the scope its ledger entries carry

    @strawberry.field(
        description="What its model calls cost (cost ledger): in all, and per batch "
        "(leaf index or navigation node), stage and model."
    )
    async def cost(self, info: Info[Context, None]) -> RunCost:
        return await resolve_run_cost(info, self.story_scope, self.id)

    @classmethod
    def from_model(cls, run: RunModel) -> SupervisionRun:
        prog, err = run_progress(run), run.error
        return build(
            cls,
            run,
            id=run.run_id,
            scope=ReviewScope.from_model(run.scope),
            trigger=run.trigger.value,
            mode=run.mode.value,
            status=run.display_status.value,
            outcome=run.outcome.value if run.outcome else None,
            result_id=run.published_result_id,
            error=build(RunErrorInfo, err, stage=err.stage.value, kind=err.kind.value)
            if err
            else None,
            stages=prog.stages,
            fraction=prog.fraction,
            covered=[source_range(s) for s in run.covered()],
            missed=[source_range(m) for m in run.missed],
            story_scope=ledger_scope(run.scope),
            batches=[
                build(
                    ReviewBatch,
                    b,
                    state=b.state.value,
                    sources=sorted({s.source_id for s in b.segments}),
                )
                for b in run.ledger.batches
            ],
        )


def run_progress(run: RunModel) -> RunProgress:
    """Progress from the stored stage and batch records only (docs/rules/reviews.md)."""
    prog = progress(run.stages, run.ledger)
    stages = []
    for item, record in zip(prog.stages, run.stages.records, strict=True):
        stages.append(
            StageProgress(
                stage=item.stage.value,
                state=item.state.value,
                done=item.done,
                total=item.total,
                error=item.error,
                started_at=record.started_at,
                ended_at=record.ended_at,
            )
        )
    return RunProgress(
        run_id=run.run_id, status=run.display_status.value, fraction=prog.fraction, stages=stages
    )


@strawberry.type
class Activity:
    id: str
    started_at: datetime
    status: str
    label: str
    heartbeat_run_id: str | None
    supervision_run_id: str | None
    config_id: str | None
    scope: str
    report: str | None
    supervision: str | None
    result_id: str | None
    unlinked: bool
    missed: int = strawberry.field(
        default=0,
        description="Ranges the supervision run could not read; status is partial then.",
    )

    @classmethod
    def from_model(cls, row: act.Activity, lang: Lang) -> Activity:
        return build(
            cls,
            row,
            status=row.status.value,
            label=row.label(lang),
            scope=row.scope_label(lang),
            report=row.report.value if row.report else None,
            supervision=row.supervision.value if row.supervision else None,
        )
