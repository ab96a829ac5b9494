"""Hand-off delivery decisions (docs/rules/watches.md): retries, then the dead letter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine.watch.delivery import (
    MAX_ATTEMPTS,
    DeliveryChannel,
    DeliveryStatus,
    delivered,
    failed,
)

NOW = datetime(2026, 12, 4, 8, 0, tzinfo=UTC)


def test_failed_attempts_wait_longer_each_time_then_the_hand_off_is_dead() -> None:
    waits = []
    for attempt in range(1, MAX_ATTEMPTS):
        settled = failed(attempt, "webhook answered 503", NOW)
        assert settled.delivery.status is DeliveryStatus.RETRYING
        assert settled.delivery.next_attempt_at == NOW + timedelta(
            seconds=settled.retry_in_seconds or 0
        )
        waits.append(settled.retry_in_seconds)
    assert waits == [1, 3, 9]
    dead = failed(MAX_ATTEMPTS, "webhook answered 503: " + "x" * 1000, NOW)
    assert dead.retry_in_seconds is None and dead.delivery.status is DeliveryStatus.DEAD
    assert dead.delivery.attempts == 4 and dead.delivery.next_attempt_at is None
    assert dead.delivery.last_error is not None and len(dead.delivery.last_error) == 300


def test_a_delivery_records_its_channel_and_time() -> None:
    settled = delivered(2, DeliveryChannel.WEBHOOK, NOW).delivery
    assert (settled.status, settled.attempts, settled.delivered_at) == (
        DeliveryStatus.DELIVERED,
        2,
        NOW,
    )
    assert settled.last_error is None
