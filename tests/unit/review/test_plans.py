"""docs/rules/reviews.md Modal and 应用启停与执行: saving plans and deciding which are due."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidInput, NotFound
from engine.review.plans import (
    HeartbeatPlan,
    PlanDraft,
    Schedule,
    claim_key,
    draft_from_input,
    due_plans,
    find_plan,
    save_plan,
    set_plan_enabled,
)
from engine.review.settings import AppSettings, set_heartbeat_enabled
from engine.review.types import InputBudget, Scope
from tests.support.review import T0

ON = AppSettings(heartbeat_enabled=True)
HOUR = timedelta(hours=1)


def draft(
    name: str = "daily", scope: Scope | None = None, config_id: str | None = None
) -> PlanDraft:
    return PlanDraft(
        config_id=config_id,
        name=name,
        scope=scope or Scope.projects("p1"),
        schedule=Schedule(every=HOUR, anchor=T0),
        window=timedelta(days=7),
        budget=InputBudget(per_batch=1000),
    )


def saved(config_id: str = "c1", **kw: object) -> HeartbeatPlan:
    return save_plan(draft(**kw), None, new_config_id=config_id, now=T0).plan  # type: ignore[arg-type]


def test_explicit_save_of_a_new_draft_creates_an_enabled_plan() -> None:
    result = save_plan(draft(), None, new_config_id="c1", now=T0)
    assert result.created and result.plan.enabled and result.plan.config_id == "c1"


def test_edit_keeps_a_disabled_plan_disabled() -> None:
    plan = set_plan_enabled(saved(), False, now=T0)
    edited = plan.to_draft().model_copy(update={"name": "renamed"})
    result = save_plan(edited, plan, new_config_id="unused", now=T0 + HOUR)
    assert not result.created
    assert result.plan.enabled is False
    assert result.plan.name == "renamed" and result.plan.created_at == T0
    assert result.plan.config_id == "c1"


def test_edit_keeps_an_enabled_plan_enabled() -> None:
    plan = saved()
    assert save_plan(plan.to_draft(), plan, new_config_id="x", now=T0).plan.enabled is True


def test_a_draft_carries_no_enabled_flag_and_no_saved_plan_means_no_work() -> None:
    # The modal's draft cannot be enabled or scheduled; only save_plan makes a plan.
    assert "enabled" not in PlanDraft.model_fields
    assert due_plans([], {}, ON, T0 + 5 * HOUR) == []


def test_invalid_save_raises_and_leaves_the_draft_intact() -> None:
    d = draft(name="   ")
    with pytest.raises(InvalidInput):
        save_plan(d, None, new_config_id="c1", now=T0)
    assert d.name == "   "


def test_editing_a_deleted_plan_is_not_found() -> None:
    with pytest.raises(NotFound):
        save_plan(draft(config_id="gone"), None, new_config_id="x", now=T0)


def test_client_input_parses_camel_case_and_rejects_garbage() -> None:
    d = draft_from_input(
        {
            "name": "n",
            "scope": {"projectIds": ["b", "a", "b"]},
            "schedule": {"every": "PT1H", "anchor": T0.isoformat()},
            "window": "P7D",
            "budget": {"perBatch": 10, "perRun": 20},
        }
    )
    assert d.scope.project_ids == ("a", "b")
    with pytest.raises(InvalidInput) as info:
        draft_from_input({"name": "n"})
    assert info.value.details["problems"]


def test_same_name_same_scope_plans_are_told_apart_by_config_id() -> None:
    a, b = saved("c1"), saved("c2")
    assert (a.name, a.scope) == (b.name, b.scope)
    assert find_plan([a, b], "c2") is b
    assert find_plan([a, b], "c1") is a
    due = due_plans([a, b], {}, ON, T0)
    assert {d.plan.config_id for d in due} == {"c1", "c2"}
    assert len({d.claim_key for d in due}) == 2
    with pytest.raises(NotFound):
        find_plan([a, b], "daily")


def test_only_saved_enabled_plans_are_due_and_only_when_the_app_is_on() -> None:
    on, off = saved("c1"), set_plan_enabled(saved("c2"), False, now=T0)
    assert [d.plan.config_id for d in due_plans([on, off], {}, ON, T0)] == ["c1"]
    assert due_plans([on, off], {}, AppSettings(), T0) == []


def test_toggling_the_app_leaves_plans_alone() -> None:
    off_plan = set_plan_enabled(saved("c2"), False, now=T0)
    toggled = set_heartbeat_enabled(set_heartbeat_enabled(ON, False), True)
    # enabling did not enable the disabled plan; the enabled plan is due again.
    assert due_plans([off_plan], {}, toggled, T0) == []
    assert due_plans([saved("c1")], {}, toggled, T0)[0].plan.enabled


def test_a_claimed_slot_is_not_due_again_until_the_next_slot() -> None:
    plan = saved()
    assert due_plans([plan], {"c1": T0}, ON, T0 + HOUR / 2) == []
    (d,) = due_plans([plan], {"c1": T0}, ON, T0 + HOUR)
    assert d.slot == T0 + HOUR
    assert d.claim_key == claim_key("c1", T0 + HOUR)


def test_nothing_is_due_before_the_anchor() -> None:
    assert due_plans([saved()], {}, ON, T0 - timedelta(seconds=1)) == []


def test_missed_slots_collapse_into_the_latest_one() -> None:
    (d,) = due_plans([saved()], {"c1": T0}, ON, T0 + 10 * HOUR + timedelta(minutes=5))
    assert d.slot == T0 + 10 * HOUR


@settings(deadline=None)  # no per-example deadline: CI machines run loaded
@given(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=400)))
def test_slot_is_the_latest_boundary_not_after_now(offset: timedelta) -> None:
    sched = Schedule(every=timedelta(minutes=37), anchor=T0)
    slot = sched.slot_at(T0 + offset)
    assert slot is not None
    assert slot <= T0 + offset < slot + sched.every
    assert (slot - T0) % sched.every == timedelta(0)


def test_zero_interval_schedule_is_invalid() -> None:
    with pytest.raises(ValueError):
        Schedule(every=timedelta(0), anchor=T0)


def test_project_order_does_not_change_the_scope_and_global_is_apart() -> None:
    assert Scope.projects("b", "a").key == Scope.projects("a", "b").key == "projects:a,b"
    assert Scope.global_().key == "global"
    assert Scope.global_().includes(None) and not Scope.global_().includes("a")
    assert Scope.projects("a").includes("a") and not Scope.projects("a").includes(None)
    with pytest.raises(ValueError):
        Scope(is_global=True, project_ids=("a",))
    with pytest.raises(ValueError):
        Scope(project_ids=())
