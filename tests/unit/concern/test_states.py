"""docs/rules/concerns.md: allowed moves write a timeline entry; refused ones change nothing."""

from __future__ import annotations

import itertools

import pytest

from engine.concern.model import ConcernStatus, TimelineType
from engine.concern.states import ALLOWED_TRANSITIONS, transition
from engine.errors import Conflict
from tests.support.concern import at, raised

S = ConcernStatus
ALLOWED = {
    (S.PENDING, S.IN_PROGRESS),
    (S.PENDING, S.DROPPED),
    (S.IN_PROGRESS, S.WAITING_REPLY),
    (S.IN_PROGRESS, S.ESCALATED),
    (S.IN_PROGRESS, S.RESOLVED),
    (S.IN_PROGRESS, S.DROPPED),
    (S.WAITING_REPLY, S.IN_PROGRESS),
    (S.WAITING_REPLY, S.ESCALATED),
    (S.WAITING_REPLY, S.RESOLVED),
    (S.WAITING_REPLY, S.DROPPED),
    (S.ESCALATED, S.IN_PROGRESS),
    (S.ESCALATED, S.RESOLVED),
    (S.ESCALATED, S.DROPPED),
}
PAIRS = list(itertools.product(list(S), list(S)))


def test_the_table_is_exactly_the_documented_one() -> None:
    assert {(a, b) for a, bs in ALLOWED_TRANSITIONS.items() for b in bs} == ALLOWED


@pytest.mark.parametrize(("src", "dst"), sorted(ALLOWED))
def test_allowed_transition_writes_one_timeline_entry(src: S, dst: S) -> None:
    c = raised().model_copy(update={"status": src})
    moved = transition(c, dst, at(5), "why")
    assert moved.status == dst
    assert moved.timeline[:-1] == c.timeline
    entry = moved.timeline[-1]
    assert (entry.type, entry.from_status, entry.to_status, entry.ts) == (
        TimelineType.STATUS,
        src,
        dst,
        at(5),
    )
    assert (moved.closed_at is not None) == (dst in (S.RESOLVED, S.DROPPED))


@pytest.mark.parametrize(("src", "dst"), [p for p in PAIRS if p not in ALLOWED])
def test_refused_transition_is_conflict_and_writes_nothing(src: S, dst: S) -> None:
    c = raised().model_copy(update={"status": src})
    before = c.model_dump()
    with pytest.raises(Conflict) as err:
        transition(c, dst, at(5), "why")
    assert err.value.code == "CONFLICT"
    assert c.model_dump() == before
