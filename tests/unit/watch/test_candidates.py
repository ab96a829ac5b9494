"""Several candidate watches (docs/rules/watches.md")."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.errors import InvalidInput
from engine.watch.candidates import Candidate, plan_round, settle_round
from engine.watch.model import Outcome, OutcomeStatus
from tests.support.watch import NOW

SUCCESS = Outcome(status=OutcomeStatus.SUCCESS, facts_recorded=True)
BLOCKED = Outcome(status=OutcomeStatus.BLOCKED, reasons=("c1 is not done",))


def test_one_item_per_round_preferring_a_verified_one() -> None:
    plan = plan_round(
        [
            Candidate(watch_id="a", last_checked_at=NOW - timedelta(days=3)),
            Candidate(watch_id="b", verified=True, last_checked_at=NOW),
            Candidate(watch_id="c"),
        ]
    )
    assert plan.focus == ("b",) and set(plan.later) == {"a", "c"}


def test_never_checked_then_oldest_goes_first() -> None:
    plan = plan_round(
        [
            Candidate(watch_id="a", last_checked_at=NOW - timedelta(days=3)),
            Candidate(watch_id="b", last_checked_at=NOW - timedelta(days=5)),
            Candidate(watch_id="c"),
        ]
    )
    assert plan.focus == ("c",) and plan.later == ("b", "a")


def test_full_verification_on_request_puts_every_candidate_in_focus() -> None:
    plan = plan_round([Candidate(watch_id="a"), Candidate(watch_id="b")], full_verification=True)
    assert set(plan.focus) == {"a", "b"} and plan.later == ()


def test_item_waiting_on_a_dependency_yields_to_one_that_can_close() -> None:
    plan = plan_round(
        [
            Candidate(watch_id="a", verified=True, depends_on=frozenset({"b"})),
            Candidate(watch_id="b"),
        ]
    )
    assert plan.focus == ("b",)


def test_unrelated_candidates_never_block_a_verified_item() -> None:
    candidates = [Candidate(watch_id="a"), Candidate(watch_id="b"), Candidate(watch_id="c")]
    settled = settle_round(candidates, {"a": SUCCESS, "b": BLOCKED})
    assert settled.closed == ("a",) and settled.still_open == ("b", "c")


def test_a_related_unfinished_candidate_does_hold_an_item_back() -> None:
    candidates = [Candidate(watch_id="a", depends_on=frozenset({"b"})), Candidate(watch_id="b")]
    assert settle_round(candidates, {"a": SUCCESS, "b": BLOCKED}).closed == ()
    assert settle_round(candidates, {"a": SUCCESS, "b": SUCCESS}).closed == ("a", "b")


def test_empty_and_duplicate_candidate_lists() -> None:
    assert plan_round([]).focus == ()
    with pytest.raises(InvalidInput):
        plan_round([Candidate(watch_id="a"), Candidate(watch_id="a")])
