"""A schedule concern's repeat: a floor on `every`, and a catch-up that is one step.

Before: `everySeconds` was unchecked and the next run was found with
`while nxt <= now: nxt += every`, so 1 s from a year-1 anchor looped ~6e10 times on the
worker's event loop (and arq handed the job on to the next worker, which hung too).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.concern.admission import raise_concern
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import Concern, ConcernType, Priority, RaiseConcernInput, ScheduleTrigger
from engine.concern.policy import ConcernPolicy
from engine.concern.schedule import next_run_after
from engine.concern.scheduler import due_trigger
from engine.errors import InvalidInput
from engine.settings import Settings
from tests.support.concern import BOSS, POLICY, at, out

YEAR_ONE = datetime(1, 1, 1, tzinfo=UTC)


def schedule(every: timedelta, anchor: datetime) -> RaiseConcernInput:
    return RaiseConcernInput(
        type=ConcernType.SCHEDULE,
        priority=Priority.HIGH,
        title="提醒",
        goal="发出提醒",
        initiator=BOSS,
        trigger=ScheduleTrigger(next_run_at=anchor, every=every),
    )


@pytest.mark.parametrize("seconds", [-5, 0.5, 1, 59])
def test_a_repeat_below_the_floor_is_invalid_input(seconds: float) -> None:
    with pytest.raises(InvalidInput) as err:
        raise_concern(
            schedule(timedelta(seconds=seconds), at(60)), concern_id="c", now=at(0), policy=POLICY
        )
    assert "everySeconds" in err.value.message and "60" in err.value.message


def test_the_floor_comes_from_settings() -> None:
    policy = ConcernPolicy.from_settings(Settings(concern_min_every_seconds=3600))
    with pytest.raises(InvalidInput):
        raise_concern(
            schedule(timedelta(minutes=59), at(60)), concern_id="c", now=at(0), policy=policy
        )
    ok = raise_concern(
        schedule(timedelta(hours=1), at(60)), concern_id="c", now=at(0), policy=policy
    )
    assert ok.new_concern.trigger is not None


def test_catch_up_from_year_one_every_second_returns_at_once() -> None:
    # a concern stored before the floor existed (or written by hand in Neo4j)
    stored = raise_concern(
        schedule(timedelta(minutes=1), YEAR_ONE), concern_id="c", now=at(0), policy=POLICY
    ).new_concern
    assert stored.trigger is not None
    c: Concern = stored.model_copy(
        update={"trigger": stored.trigger.model_copy(update={"every": timedelta(seconds=1)})}
    )
    now = at(0)
    trig = due_trigger(c, now)
    assert trig is not None
    # arithmetic, not a walk over the ~6e10 periods since year one: a walk would not end
    # within the per-test timeout
    d = decide(c, trig, out(LoopStep.RESOLVE, goal_met=True, conclusion="已提醒"), now, POLICY)
    nxt = d.new_concern.trigger.next_run_at  # type: ignore[union-attr]
    assert nxt is not None and now < nxt <= now + timedelta(seconds=1)


def test_next_run_is_the_first_period_after_now() -> None:
    anchor = datetime(2026, 1, 1, tzinfo=UTC)
    every = timedelta(minutes=7)
    for minutes in (0, 1, 6, 7, 8, 700, 701):
        now = anchor + timedelta(minutes=minutes)
        nxt = next_run_after(anchor, every, now)
        assert nxt is not None and now < nxt <= now + every
        assert (nxt - anchor) % every == timedelta(0)
    assert next_run_after(anchor, every, anchor - timedelta(days=1)) == anchor + every
    assert next_run_after(anchor, timedelta(0), anchor) is None
    assert next_run_after(anchor, None, anchor) is None
