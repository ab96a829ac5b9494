"""A heartbeat round over candidates (docs/rules/watches.md")."""

from __future__ import annotations

from datetime import timedelta

from engine.watch.heartbeat_round import CandidateSnapshot, decide_round
from engine.watch.model import Outcome, OutcomeStatus
from tests.support.watch import NOW

SUCCESS = Outcome(status=OutcomeStatus.SUCCESS, facts_recorded=True)
BLOCKED = Outcome(status=OutcomeStatus.BLOCKED, reasons=("c1 is not done",))

VERIFIED = CandidateSnapshot(
    watch_id="a", last_checked_at=NOW, observation_id="o-a", outcome=SUCCESS
)
STUCK = CandidateSnapshot(
    watch_id="b", last_checked_at=NOW - timedelta(days=2), observation_id="o-b", outcome=BLOCKED
)
OLDER = CandidateSnapshot(watch_id="c", last_checked_at=NOW - timedelta(days=1))
NEW = CandidateSnapshot(watch_id="d")


def test_verified_item_closes_although_another_candidate_is_blocked() -> None:
    decision = decide_round([VERIFIED, STUCK, OLDER])
    assert [(c.watch_id, c.observation_id) for c in decision.closed] == [("a", "o-a")]
    assert decision.to_check == ("b",), "one item per round: the one checked longest ago"
    assert set(decision.later) == {"c"}


def test_never_checked_candidate_goes_first_and_closed_ones_are_not_rechecked() -> None:
    decision = decide_round([VERIFIED, STUCK, OLDER, NEW])
    assert decision.to_check == ("d",) and "a" not in decision.later


def test_an_already_closed_success_is_not_closed_again() -> None:
    closed = VERIFIED.model_copy(update={"closed_observation_id": "o-a"})
    decision = decide_round([closed, STUCK])
    assert decision.closed == () and decision.to_check == ("b",)


def test_full_verification_checks_every_candidate() -> None:
    decision = decide_round([VERIFIED, STUCK, OLDER, NEW], full_verification=True)
    assert [c.watch_id for c in decision.closed] == ["a"]
    assert set(decision.to_check) == {"a", "b", "c", "d"} and decision.later == ()


def test_no_candidates_means_nothing_to_do() -> None:
    decision = decide_round([])
    assert decision.closed == () and decision.to_check == ()
