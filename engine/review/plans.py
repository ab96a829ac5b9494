"""Heartbeat plans: what the automatic supervision watches and when (Modal; docs/rules/reviews.md).

- A new plan starts as a draft (`PlanDraft`), a plain value: building or editing one writes
  nothing and starts nothing. Only an explicit `save_plan` persists it, and a new plan is
  saved enabled; an edit keeps the plan's existing `enabled`.
- A failed save leaves the draft as it was (it is immutable), so the modal can keep it.
- Plans are identified by `configId`: two plans with the same name and scope are different
  plans, never merged or deduplicated by name.
- Only saved, enabled plans take part in scheduling, and only while the app is enabled; with
  no such plan there is no automatic work (docs/rules/reviews.md).

`due_plans` is the cron's decision. Each due plan comes with the schedule slot it is due
for; `claim_key(configId, slot)` is the key the jobs layer claims atomically, so two workers
seeing the same due plan claim one run between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from pydantic import ValidationError, field_validator

from engine.errors import InvalidInput, NotFound
from engine.review.settings import AppSettings
from engine.review.types import InputBudget, ReviewModel, Scope


class Schedule(ReviewModel):
    """Every `every`, on slots counted from `anchor` (anchor + k·every)."""

    every: timedelta
    anchor: datetime

    @field_validator("every")
    @classmethod
    def _positive(cls, v: timedelta) -> timedelta:
        if v <= timedelta(0):
            raise ValueError("a schedule interval must be positive")
        return v

    def slot_at(self, now: datetime) -> datetime | None:
        """The latest slot at or before `now`; None before the anchor.

        Missed slots collapse into this one: a worker that was down for a day runs the plan
        once, not once per missed slot.
        """
        if now < self.anchor:
            return None
        return self.anchor + ((now - self.anchor) // self.every) * self.every


DEFAULT_RETENTION = timedelta(days=30)  # a plan's report history, unless it says otherwise
MIN_RETENTION = timedelta(hours=1)


class PlanDraft(ReviewModel):
    """What the plan modal holds. `config_id` is None for a new plan."""

    config_id: str | None = None
    name: str
    scope: Scope
    schedule: Schedule
    # The review window: how far back the first automatic run reads (docs/rules/reviews.md).
    window: timedelta
    budget: InputBudget
    # How long the plan's finished heartbeat runs and their reports are kept (docs/rules/reviews.md:
    # 心跳报告沿用计划的历史保留和删除规则); a cron deletes older ones.
    retention: timedelta = DEFAULT_RETENTION


class HeartbeatPlan(ReviewModel):
    config_id: str
    name: str
    scope: Scope
    schedule: Schedule
    enabled: bool
    window: timedelta
    budget: InputBudget
    created_at: datetime
    updated_at: datetime
    retention: timedelta = DEFAULT_RETENTION  # plans saved before it keep the default

    def expires_before(self, now: datetime) -> datetime:
        """Finished heartbeat runs of this plan claimed before this instant are removed."""
        return now - self.retention

    def to_draft(self) -> PlanDraft:
        """Open this plan in the modal for editing (writes nothing)."""
        return PlanDraft(
            config_id=self.config_id,
            name=self.name,
            scope=self.scope,
            schedule=self.schedule,
            window=self.window,
            budget=self.budget,
            retention=self.retention,
        )


class PlanSaved(ReviewModel):
    plan: HeartbeatPlan
    created: bool


def _check_draft(draft: PlanDraft) -> None:
    if not draft.name.strip():
        raise InvalidInput("a plan needs a name", field="name")
    if draft.window <= timedelta(0):
        raise InvalidInput("the review window must be positive", field="window")
    if draft.retention < MIN_RETENTION:
        raise InvalidInput("reports are kept at least one hour", field="retention")


def save_plan(
    draft: PlanDraft,
    existing: HeartbeatPlan | None,
    *,
    new_config_id: str,
    now: datetime,
) -> PlanSaved:
    """`savePlan`: the explicit save of a draft.

    - new draft (`config_id` None): a plan with `new_config_id`, enabled;
    - edit: `existing` must be the plan the draft names; its `enabled` and `created_at` stay.
    Raises `InvalidInput` (nothing saved, draft kept) or `NotFound` (edit of a deleted plan).
    """
    _check_draft(draft)
    if draft.config_id is None:
        if not new_config_id.strip():
            raise InvalidInput("a new plan needs a config id")
        plan = HeartbeatPlan(
            config_id=new_config_id,
            name=draft.name.strip(),
            scope=draft.scope,
            schedule=draft.schedule,
            enabled=True,
            window=draft.window,
            budget=draft.budget,
            retention=draft.retention,
            created_at=now,
            updated_at=now,
        )
        return PlanSaved(plan=plan, created=True)
    if existing is None or existing.config_id != draft.config_id:
        raise NotFound("no saved plan with this config id", config_id=draft.config_id)
    plan = existing.model_copy(
        update={
            "name": draft.name.strip(),
            "scope": draft.scope,
            "schedule": draft.schedule,
            "window": draft.window,
            "budget": draft.budget,
            "retention": draft.retention,
            "updated_at": now,
        }
    )
    return PlanSaved(plan=plan, created=False)


def draft_from_input(data: Mapping[str, object]) -> PlanDraft:
    """Parse a client's plan input (camelCase or snake_case) into a draft, or `InvalidInput`."""
    try:
        return PlanDraft.model_validate(dict(data))
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise InvalidInput("invalid plan", problems=problems) from None


def set_plan_enabled(plan: HeartbeatPlan, enabled: bool, *, now: datetime) -> HeartbeatPlan:
    return plan.model_copy(update={"enabled": enabled, "updated_at": now})


def find_plan(plans: Iterable[HeartbeatPlan], config_id: str) -> HeartbeatPlan:
    """Plans are addressed by `configId` only; a name never identifies a plan."""
    for plan in plans:
        if plan.config_id == config_id:
            return plan
    raise NotFound("no plan with this config id", config_id=config_id)


class DuePlan(ReviewModel):
    plan: HeartbeatPlan
    slot: datetime

    @property
    def claim_key(self) -> str:
        return claim_key(self.plan.config_id, self.slot)


def claim_key(config_id: str, slot: datetime) -> str:
    """The one key under which a plan's run for a slot may be claimed (and its arq job id)."""
    return f"heartbeat:{config_id}:{slot.isoformat()}"


def due_plans(
    plans: Sequence[HeartbeatPlan],
    last_slots: Mapping[str, datetime],
    settings: AppSettings,
    now: datetime,
) -> list[DuePlan]:
    """Plans whose current slot has not been claimed yet, oldest slot first.

    `last_slots` maps configId to the slot of the plan's latest claimed run. A disabled app,
    a disabled plan, or a plan whose anchor lies in the future is never due.
    """
    if not settings.heartbeat_enabled:
        return []
    due: list[DuePlan] = []
    for plan in plans:
        if not plan.enabled:
            continue
        slot = plan.schedule.slot_at(now)
        if slot is None:
            continue
        last = last_slots.get(plan.config_id)
        if last is not None and last >= slot:
            continue
        due.append(DuePlan(plan=plan, slot=slot))
    due.sort(key=lambda d: (d.slot, d.plan.config_id))
    return due
