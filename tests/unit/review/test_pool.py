"""The supervision FIFO pool decisions (监督专用 FIFO 并发池; docs/rules/reviews.md)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from engine.errors import Conflict, InvalidInput
from engine.review import pool as pl

TIMINGS = pl.PoolTimings(slots=2, slot_ttl=timedelta(seconds=15), wait_ttl=timedelta(seconds=10))
S = timedelta(seconds=1)


def ask(
    state: pl.PoolState, holder: str, now: datetime
) -> tuple[pl.PoolState, pl.Granted | pl.Queued]:
    return pl.request(state, holder, now=now, timings=TIMINGS)


def test_first_come_first_served_up_to_the_bound(t0: datetime) -> None:
    state = pl.PoolState()
    state, a = ask(state, "a", t0)
    state, b = ask(state, "b", t0 + S)
    state, c = ask(state, "c", t0 + 2 * S)
    state, d = ask(state, "d", t0 + 3 * S)
    assert isinstance(a, pl.Granted) and isinstance(b, pl.Granted)
    assert isinstance(c, pl.Queued) and c.ahead == 0 and c.ticket.number == 3
    assert isinstance(d, pl.Queued) and d.ahead == 1
    assert len(state.held) == 2


def test_a_later_waiter_never_overtakes_an_earlier_one(t0: datetime) -> None:
    state = pl.PoolState()
    for holder in ("a", "b", "c", "d"):
        state, _ = ask(state, holder, t0)
    state = pl.release(state, "a")
    # d asks first after the release, but c is ahead of it in line
    state, d = ask(state, "d", t0 + S)
    assert isinstance(d, pl.Queued) and d.ahead == 1
    state, c = ask(state, "c", t0 + 2 * S)
    assert isinstance(c, pl.Granted) and c.slot.number == 3
    state = pl.release(state, "b")
    state, d = ask(state, "d", t0 + 3 * S)
    assert isinstance(d, pl.Granted) and d.slot.enqueued_at == t0


def test_asking_again_keeps_the_place_and_the_slot(t0: datetime) -> None:
    state = pl.PoolState()
    state, first = ask(state, "a", t0)
    state, again = ask(state, "a", t0 + 5 * S)
    assert isinstance(first, pl.Granted) and isinstance(again, pl.Granted)
    assert again.slot.granted_at == t0  # the timeout still counts from the first grant
    assert again.slot.expires_at == t0 + 5 * S + TIMINGS.slot_ttl
    assert len(state.held) == 1 and state.next_number == 2


def test_expired_slot_is_reclaimed_for_the_next_in_line(t0: datetime) -> None:
    state = pl.PoolState()
    for holder in ("dead", "b", "c"):
        state, _ = ask(state, holder, t0)
    state = pl.renew(state, "b", now=t0 + 10 * S, timings=TIMINGS)
    state, c = ask(state, "c", t0 + 9 * S)  # keeps its ticket alive
    assert isinstance(c, pl.Queued)
    state, c = ask(state, "c", t0 + 16 * S)  # "dead" never renewed: its slot expired
    assert isinstance(c, pl.Granted) and c.reclaimed == ("dead",)
    assert {s.holder for s in state.held} == {"b", "c"}
    with pytest.raises(Conflict):
        pl.renew(state, "dead", now=t0 + 17 * S, timings=TIMINGS)


def test_a_waiter_that_stops_asking_leaves_the_line(t0: datetime) -> None:
    state = pl.PoolState()
    for holder in ("a", "b", "gone", "d"):
        state, _ = ask(state, holder, t0)
    state, d = ask(state, "d", t0 + 9 * S)  # d keeps asking; "gone" does not
    state = pl.release(state, "b")
    state, d = ask(state, "d", t0 + 9 * S + S / 2)
    assert isinstance(d, pl.Queued) and d.ahead == 1  # "gone" still counts
    state, d = ask(state, "d", t0 + 10 * S + S / 2)
    assert isinstance(d, pl.Granted)
    assert state.ticket_of("gone") is None


def test_release_is_harmless_twice_and_frees_a_waiter_too(t0: datetime) -> None:
    state = pl.PoolState()
    for holder in ("a", "b", "c"):
        state, _ = ask(state, holder, t0)
    once = pl.release(pl.release(state, "a"), "a")
    assert [s.holder for s in once.held] == ["b"]
    left = pl.release(state, "c")
    assert left.waiting == ()


def test_timeout_counts_from_the_grant_not_the_ticket(t0: datetime) -> None:
    state = pl.PoolState()
    for holder in ("a", "b", "c"):
        state, _ = ask(state, holder, t0)
    state = pl.release(state, "a")
    state, c = ask(state, "c", t0 + 8 * S)
    assert isinstance(c, pl.Granted) and c.slot.enqueued_at == t0
    timeout = timedelta(seconds=5)
    assert pl.deadline(c.slot, timeout) == t0 + 13 * S
    assert pl.remaining(c.slot, timeout, now=t0 + 10 * S) == 3 * S
    assert pl.remaining(c.slot, timeout, now=t0 + 20 * S) == timedelta(0)
    with pytest.raises(InvalidInput):
        pl.deadline(c.slot, timedelta(0))


def test_a_holder_needs_a_name(t0: datetime) -> None:
    with pytest.raises(InvalidInput):
        ask(pl.PoolState(), " ", t0)
