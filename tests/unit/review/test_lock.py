"""docs/rules/reviews.md: one supervision review at a time, as a lease."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import Busy, Conflict
from engine.review.lock import Acquired, Lease, Wait, acquire, release, renew
from engine.review.types import Trigger
from tests.support.review import T0

TTL = timedelta(seconds=30)


def take(
    current: Lease | None, owner: str, run_id: str, trigger: Trigger, dt: int = 0
) -> Acquired | Wait:
    return acquire(
        current,
        owner=owner,
        run_id=run_id,
        trigger=trigger,
        now=T0 + timedelta(seconds=dt),
        ttl=TTL,
    )


def held() -> Lease:
    result = take(None, "w1", "r1", Trigger.AUTOMATIC)
    assert isinstance(result, Acquired)
    return result.lease


def test_free_lock_is_acquired_with_owner_expiry_and_token() -> None:
    lease = held()
    assert (lease.owner, lease.run_id, lease.token) == ("w1", "r1", 1)
    assert lease.expires_at == T0 + TTL


def test_manual_start_or_continue_while_busy_is_refused_at_once() -> None:
    with pytest.raises(Busy) as info:
        take(held(), "w2", "r2", Trigger.MANUAL, dt=5)
    assert info.value.details["holder_run_id"] == "r1"


def test_automatic_review_waits_for_the_holder() -> None:
    result = take(held(), "w2", "r2", Trigger.AUTOMATIC, dt=5)
    assert result == Wait(retry_at=T0 + TTL, holder_run_id="r1")


def test_the_lock_is_shared_by_every_scope() -> None:
    # nothing about scope enters the decision: a run of another scope is refused the same way
    with pytest.raises(Busy):
        take(held(), "w1", "r-other-scope", Trigger.MANUAL, dt=1)


def test_expired_lease_is_taken_over_with_a_higher_token() -> None:
    old = held()
    result = take(old, "w2", "r2", Trigger.MANUAL, dt=31)
    assert isinstance(result, Acquired)
    assert result.lease.owner == "w2" and result.lease.token == 2 and result.took_over == old


def test_holder_renews_before_each_model_request() -> None:
    lease = held()
    renewed = renew(lease, owner="w1", token=1, now=T0 + timedelta(seconds=20), ttl=TTL)
    assert renewed.expires_at == T0 + timedelta(seconds=50)


def test_crashed_holder_cannot_keep_or_renew_a_lease_taken_over() -> None:
    old = held()
    new = take(old, "w2", "r2", Trigger.AUTOMATIC, dt=40)
    assert isinstance(new, Acquired)
    with pytest.raises(Conflict):
        renew(new.lease, owner="w1", token=1, now=T0 + timedelta(seconds=41), ttl=TTL)
    with pytest.raises(Conflict):
        renew(old, owner="w1", token=1, now=T0 + timedelta(seconds=31), ttl=TTL)
    # the old holder's release leaves the new lease in place
    assert release(new.lease, owner="w1", token=1) == new.lease
    assert release(new.lease, owner="w2", token=2) is None


def test_re_acquire_by_the_same_holder_and_run_refreshes() -> None:
    result = take(held(), "w1", "r1", Trigger.MANUAL, dt=10)
    assert isinstance(result, Acquired) and result.lease.expires_at == T0 + timedelta(seconds=40)


@settings(deadline=None)  # no per-example deadline: CI machines run loaded
@given(st.lists(st.tuples(st.sampled_from(["w1", "w2", "w3"]), st.integers(0, 5)), max_size=40))
def test_never_two_live_holders(attempts: list[tuple[str, int]]) -> None:
    """However workers race, at any instant at most one unexpired lease exists and tokens
    only grow."""
    current: Lease | None = None
    now = 0
    for owner, step in attempts:
        now += step * 10
        try:
            result = take(current, owner, f"run-{owner}", Trigger.MANUAL, dt=now)
        except Busy:
            assert current is not None and not current.expired(T0 + timedelta(seconds=now))
            continue
        assert isinstance(result, Acquired)
        if current is not None and result.lease.owner != current.owner:
            assert current.expired(T0 + timedelta(seconds=now))
            assert result.lease.token == current.token + 1
        current = result.lease
