"""Outbox webhooks are signed: X-Storygraph-Signature is the hex HMAC-SHA256 of
`<X-Storygraph-Timestamp>.<raw body>` with CONCERN_WEBHOOK_SECRET, checked by a real
receiver on loopback with the verification snippet of docs/operations/configuration.md; unsigned only without a secret."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from engine.settings import Settings
from graph.concern.outbox import OutboxRow
from jobs.concern.channel import WebhookChannel, channel_from_settings
from tests.support.webhook import Webhook

SECRET = "whsec-test-0123456789"
NOW = datetime(2035, 1, 1, tzinfo=UTC)


def verify(secret: str, headers: dict[str, str], body: bytes, max_age_s: int = 300) -> bool:
    """The snippet of docs/operations/configuration.md."""
    ts = headers["x-storygraph-timestamp"]
    expected = hmac.new(secret.encode(), ts.encode() + b"." + body, hashlib.sha256).hexdigest()
    fresh = abs(time.time() - int(ts)) <= max_age_s
    return fresh and hmac.compare_digest(expected, headers["x-storygraph-signature"])


@pytest.fixture
def receiver() -> Iterator[Webhook]:
    with Webhook(failing=False) as hook:
        yield hook


def row() -> OutboxRow:
    return OutboxRow(
        key="ob-1", concern_id="c1", scope="p1", kind="ask", recipient_person_id="u1",
        recipient_name="张三", channel="feishu", channel_user_id="ou_1", text="进度如何？",
        deliver_at=NOW, recorded_at=NOW, status="pending", attempts=0, seq=1,
    )  # fmt: skip


async def test_webhook_posts_are_signed_with_the_configured_secret(receiver: Webhook) -> None:
    settings = Settings(concern_webhook_url=receiver.url, concern_webhook_secret=SECRET)  # type: ignore[arg-type]
    async with httpx.AsyncClient() as http:
        channel = channel_from_settings(settings, http)
        assert isinstance(channel, WebhookChannel)
        await channel.send(row())
    (headers, body), = receiver.raw  # fmt: skip
    assert verify(SECRET, headers, body)
    assert "进度如何？".encode() in body and headers["idempotency-key"] == "ob-1"
    # a changed body, another secret or an old timestamp does not verify
    assert not verify(SECRET, headers, body.replace("进度".encode(), "结果".encode()))
    assert not verify("another-secret", headers, body)
    stale = {**headers, "x-storygraph-timestamp": str(int(time.time()) - 3600)}
    assert not verify(SECRET, stale, body)


async def test_webhook_posts_are_unsigned_only_without_a_secret(receiver: Webhook) -> None:
    settings = Settings(concern_webhook_url=receiver.url)  # type: ignore[call-arg]
    async with httpx.AsyncClient() as http:
        await channel_from_settings(settings, http).send(row())
    (headers, _), = receiver.raw  # fmt: skip
    assert "x-storygraph-signature" not in headers
    assert "x-storygraph-timestamp" not in headers
