"""Outbound channels for concern messages (send_message_to; docs/rules/concerns.md).

`Channel.send(row)` delivers one outbox row or raises `ChannelError`; delivery state lives
in the outbox (graph/concern/outbox.py), never here.

- `WebhookChannel`: a real HTTP adapter — POSTs the row as JSON to one webhook URL (a
  chat-bot gateway relays it to feishu / telegram / …) with `Idempotency-Key: <outbox key>`
  so a receiver can also drop a repeat. With a secret (CONCERN_WEBHOOK_SECRET) every POST
  carries `X-Storygraph-Timestamp` (unix seconds) and `X-Storygraph-Signature`, the hex
  HMAC-SHA256 of `<timestamp>.<body>` (`sign`). Any non-2xx answer or transport error fails.
- `OutboxChannel`: no external hop; the outbox row itself is the delivered message, read by
  clients through GraphQL (`concernMessages`). The default when no webhook is configured.

`deliver_due` claims, sends and marks the rows whose time has come.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

import httpx
from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.settings import Settings
from graph.concern.channel_health import ChannelHealthStore
from graph.concern.outbox import Outbox, OutboxRow
from jobs.deps import Deps
from jobs.liveness import live_workers

log = logging.getLogger("storygraph.concern.channel")


class ChannelError(Exception):
    """A send failed; the row stays pending for the next attempt."""


class Channel(Protocol):
    name: str

    async def send(self, row: OutboxRow) -> None: ...


class OutboxChannel:
    name = "outbox"

    async def send(self, row: OutboxRow) -> None:
        return None


SIGNATURE_HEADER = "X-Storygraph-Signature"
TIMESTAMP_HEADER = "X-Storygraph-Timestamp"


def refusal(response: httpx.Response) -> str:
    """What a webhook's non-2xx answer is recorded as (a run's or a row's last error, which
    readers see): its status, reason and the size and type of its body, never the body
    itself (it may carry the receiver's internals or its own users' data)."""
    media = response.headers.get("content-type", "").split(";", 1)[0].strip() or "no type"
    return (
        f"webhook answered {response.status_code} {response.reason_phrase}".rstrip()
        + f" ({len(response.content)} bytes of {media})"
    )


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of `<timestamp>.<body>`: what a receiver recomputes
    (docs/operations/configuration.md)."""
    return hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


class WebhookChannel:
    name = "webhook"

    def __init__(
        self,
        http: httpx.AsyncClient,
        url: str,
        *,
        timeout: float = 10.0,
        secret: str | None = None,
    ) -> None:
        self.http = http
        self.url = url
        self.timeout = timeout
        self.secret = secret

    async def send(self, row: OutboxRow) -> None:
        payload = {
            "key": row.key,
            "concern_id": row.concern_id,
            "signal_id": row.signal_id,
            "kind": row.kind,
            "recipient": {
                "person_id": row.recipient_person_id,
                "name": row.recipient_name,
                "channel": row.channel,
                "channel_user_id": row.channel_user_id,
            },
            "text": row.text,
            "tone": row.tone,
            "report_kinds": row.report_kinds,
        }
        body = json.dumps(payload, ensure_ascii=False).encode()
        headers = {"Idempotency-Key": row.key, "Content-Type": "application/json"}
        if self.secret:
            timestamp = str(int(utcnow().timestamp()))
            headers[TIMESTAMP_HEADER] = timestamp
            headers[SIGNATURE_HEADER] = sign(self.secret, timestamp, body)
        try:
            response = await self.http.post(
                self.url, content=body, headers=headers, timeout=self.timeout
            )
        except httpx.HTTPError as exc:
            raise ChannelError(f"{type(exc).__name__}: {exc}") from exc
        if not response.is_success:
            raise ChannelError(refusal(response))


def channel_from_settings(settings: Settings, http: httpx.AsyncClient) -> Channel:
    """A webhook (signed when CONCERN_WEBHOOK_SECRET is set) when CONCERN_WEBHOOK_URL is set;
    otherwise the outbox row itself is the delivery."""
    url = settings.concern_webhook_url
    if not url:
        return OutboxChannel()
    secret = settings.concern_webhook_secret
    return WebhookChannel(http, url, secret=secret.get_secret_value() if secret else None)


@dataclass
class DeliveryReport:
    sent: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)


async def deliver_due(
    driver: AsyncDriver,
    database: str,
    channel: Channel,
    *,
    now: datetime,
    worker_id: str,
    concern_id: str | None = None,
    key: str | None = None,
    scope: str | None = None,
    live: Collection[str] | None = None,
    limit: int = 200,
) -> DeliveryReport:
    """Claim, send and mark the rows due at `now` (the concern's clock). With `live` (the
    workers alive on this queue, this one included) a row a killed worker left `sending` is
    sent again at once, under its same Idempotency-Key; claims are held in wall-clock time."""
    report = DeliveryReport()
    outbox = Outbox(driver, database)
    health = ChannelHealthStore(driver, database)
    wall = utcnow()
    due = await outbox.due(
        now, scope=scope, concern_id=concern_id, key=key, live=live, held_at=wall, limit=limit
    )
    for row in due:
        claimed = await outbox.claim(row.key, worker_id=worker_id, held_at=utcnow(), live=live)
        if claimed is None:
            continue  # another worker has it, or it was sent meanwhile
        try:
            await channel.send(claimed)
        except ChannelError as exc:
            await outbox.mark_failed(row.key, worker_id=worker_id, error=str(exc))
            await health.record_delivery(row.scope, row.channel, now=now, error=str(exc))
            report.failed[row.key] = str(exc)
            log.warning(
                "concern message not sent",
                extra={"fields": {"key": row.key, "attempts": claimed.attempts, "error": str(exc)}},
            )
            continue
        await outbox.mark_sent(row.key, worker_id=worker_id, now=now)
        await health.record_delivery(row.scope, row.channel, now=now, error=None)
        report.sent.append(row.key)
    return report


async def live_senders(deps: Deps) -> frozenset[str] | None:
    """The workers alive on this queue, this one included; None without Redis (a job run
    inline), where only the lease tells a dead sender's claim."""
    if deps.pool is None:
        return None
    alive = await live_workers(deps.pool, deps.settings.queue_name)
    return frozenset(alive | {deps.worker_id})
