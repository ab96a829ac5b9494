"""A row a killed worker left `sending` (claimed, maybe POSTed, never marked) is sent again as
soon as its claimant is known to be dead, not only after the claim's lease; a live claimant's
row is never taken from it. Claims are held in wall-clock time, whatever the concern's own
clock says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import AsyncDriver

from engine.settings import Settings
from graph.concern.outbox import CLAIM_LEASE, DEAD_CLAIM_AGE, Outbox


async def test_a_dead_senders_claim_is_taken_over_at_once_and_a_live_ones_never(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings
) -> None:
    outbox = Outbox(neo4j_driver, settings.neo4j_database)
    raised = await raise_one()
    (row,) = await outbox.of_concern(raised.concern_id)
    business_now = row.deliver_at  # the concern's clock: the row is due now
    wall = datetime.now(UTC)

    first = await outbox.claim(row.key, worker_id="killed-worker", held_at=wall)
    assert first is not None and first.status == "sending"

    def keys(rows: list[Any]) -> set[str]:
        return {r.key for r in rows}

    dead_gone = {"w2"}
    both_alive = {"killed-worker", "w2"}
    later = wall + timedelta(seconds=30)
    mine = {"concern_id": raised.concern_id}

    async def due(held_at: datetime, live: set[str] | None) -> set[str]:
        return keys(await outbox.due(business_now, held_at=held_at, live=live, **mine))

    assert row.key not in await due(later, None)  # no liveness known: only the lease
    assert row.key not in await due(later, both_alive)
    assert row.key in await due(later, dead_gone)
    # a claim younger than a liveness key lives is never taken: its worker may be starting
    fresh = wall + DEAD_CLAIM_AGE / 2
    assert row.key not in await due(fresh, dead_gone)
    assert await outbox.claim(row.key, worker_id="w2", held_at=fresh, live=dead_gone) is None

    assert await outbox.claim(row.key, worker_id="w2", held_at=later) is None, "within the lease"
    assert await outbox.claim(row.key, worker_id="w2", held_at=later, live=both_alive) is None
    taken = await outbox.claim(row.key, worker_id="w2", held_at=later, live=dead_gone)
    assert taken is not None and taken.attempts == 2
    assert taken.key == row.key, "the same Idempotency-Key goes out again"

    # without liveness, the lease still ends a claim, in wall-clock time
    after_lease = later + CLAIM_LEASE + timedelta(seconds=1)
    assert await outbox.claim(row.key, worker_id="w3", held_at=later) is None
    again = await outbox.claim(row.key, worker_id="w3", held_at=after_lease)
    assert again is not None and again.attempts == 3
