"""Delivering a hand-off to the partner session (docs/rules/watches.md).

A hand-off is not only stored: each new one (a new stable execution key) is delivered once.

- With a webhook configured (`CONCERN_WEBHOOK_URL`, signed with `CONCERN_WEBHOOK_SECRET`, the
  way concern messages go out) the delivery is one JSON POST whose `Idempotency-Key` is the
  execution key, so a receiver can also drop a repeat. A failed POST is retried after
  `RETRY_DELAYS` (1, 3, 9 s); after `MAX_ATTEMPTS` failures the hand-off is dead-lettered
  (`dead`, with the last error), visible on the watch. Nothing retries a dead hand-off by
  itself.
- Without a webhook the partner session reads it where it lives: the `watchHandOffs(scope)`
  subscription and the MCP resource of its session. Nothing proves it arrived, so it stays
  `pending` (shown and counted on the watch, `pendingHandOffs`) until a webhook delivers it
  or the session acknowledges it (`acknowledgeWatchHandOff`): then it is `delivered` on
  channel `session`, with who acknowledged it. Never `delivered` without a receipt.

A repeated check over unchanged sources yields the same execution key; the store keeps one
hand-off per key (`graph/watch/records.py`), so a repeat is never delivered again, and a
delivered or dead hand-off is never claimed again.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from engine.watch.model import Frozen, HandOff

MAX_ATTEMPTS = 4
RETRY_DELAYS = (1, 3, 9)  # seconds after the 1st, 2nd and 3rd failed attempt
ERROR_LIMIT = 300  # characters of the last error kept on the hand-off
PAYLOAD_KIND = "watch_handoff"


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # stored, its delivery job not run yet
    SENDING = "sending"  # an attempt is under way (or its worker died: sent again)
    RETRYING = "retrying"  # an attempt failed; the next one is at `next_attempt_at`
    DELIVERED = "delivered"
    DEAD = "dead"  # every attempt failed: the dead-letter state


CLAIMABLE = (DeliveryStatus.PENDING, DeliveryStatus.SENDING, DeliveryStatus.RETRYING)


class DeliveryChannel(StrEnum):
    WEBHOOK = "webhook"
    SESSION = "session"  # the subscription and the session's MCP resource only


class Delivery(Frozen):
    """Where a hand-off's delivery stands."""

    status: DeliveryStatus = DeliveryStatus.PENDING
    attempts: int = 0
    channel: DeliveryChannel | None = None
    last_error: str | None = None
    next_attempt_at: datetime | None = None
    delivered_at: datetime | None = None
    acknowledged_by: str | None = None  # channel session: who acknowledged it


class Settled(Frozen):
    """The outcome of one attempt: the new delivery state and, when retrying, the wait."""

    delivery: Delivery
    retry_in_seconds: int | None = None


def delivered(attempts: int, channel: DeliveryChannel, now: datetime) -> Settled:
    return Settled(
        delivery=Delivery(
            status=DeliveryStatus.DELIVERED, attempts=attempts, channel=channel, delivered_at=now
        )
    )


def acknowledged(delivery: Delivery, by: str, now: datetime) -> Delivery:
    """The partner session's acknowledgement: the receipt of a hand-off it read on its own
    channels. One already delivered stays as it was."""
    if delivery.status is DeliveryStatus.DELIVERED:
        return delivery
    return Delivery(
        status=DeliveryStatus.DELIVERED,
        attempts=delivery.attempts,
        channel=DeliveryChannel.SESSION,
        delivered_at=now,
        acknowledged_by=by,
    )


def failed(attempts: int, error: str, now: datetime) -> Settled:
    """After the `attempts`-th failed POST: retry after the next delay, or dead-letter."""
    error = error[:ERROR_LIMIT]
    if attempts >= MAX_ATTEMPTS:
        return Settled(
            delivery=Delivery(
                status=DeliveryStatus.DEAD,
                attempts=attempts,
                channel=DeliveryChannel.WEBHOOK,
                last_error=error,
            )
        )
    wait = RETRY_DELAYS[min(attempts, len(RETRY_DELAYS)) - 1]
    return Settled(
        delivery=Delivery(
            status=DeliveryStatus.RETRYING,
            attempts=attempts,
            channel=DeliveryChannel.WEBHOOK,
            last_error=error,
            next_attempt_at=now + timedelta(seconds=wait),
        ),
        retry_in_seconds=wait,
    )


def webhook_payload(scope: str, handoff: HandOff) -> dict[str, Any]:
    """The JSON body of a hand-off's webhook POST: what the partner session needs to run it."""
    return {
        "kind": PAYLOAD_KIND,
        "key": handoff.execution_key,
        "scope": scope,
        "watch_id": handoff.watch_id,
        "session_id": handoff.session_id,
        "run_id": handoff.run_id,
        "observation_id": handoff.observation_id,
        "steps": [s.model_dump(mode="json") for s in handoff.steps],
        "dependencies": list(handoff.dependencies),
        "created_at": handoff.created_at.isoformat(),
    }
