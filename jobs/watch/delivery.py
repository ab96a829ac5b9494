"""Hand-offs delivered to the partner session (docs/rules/watches.md; the rules are
in engine/watch/delivery.py).

- `announce(deps, scope, execution_key)`: after a new hand-off was stored, its delivery job is
  enqueued under a stable job id and a `watch_handoff` hint is published to the scope's
  change channel (what `watchHandOffs(scope)` and `graphChanged` listen to). A repeat of a
  hand-off still `pending` (its job lost with a worker that died before enqueueing it) is
  enqueued again without a hint; the stable job id and the claim keep it to one delivery.
- `deliver_handoff(deps, principal, scope=..., execution_key=..., http=...)` (the arq job
  `deliver_watch_handoff`): claims one attempt, POSTs the hand-off to the webhook the way
  concern messages go out (JSON, `Idempotency-Key: <execution key>`, signed with
  `X-Storygraph-Timestamp` / `X-Storygraph-Signature` when `CONCERN_WEBHOOK_SECRET` is set),
  and settles it: delivered, retrying (raises `DeliveryRetry` with the wait) or dead.
  Without a webhook the job leaves it `pending`: the session's own channels give no receipt.
- `acknowledge_handoff(deps, principal, scope, execution_key)`: the partner session's
  receipt (editor role): `delivered` on channel `session`, recorded with the token's name.
- `handoff_stream(deps, principal, scope, hub)`: the scope's new hand-offs as they are stored.
- `session_handoffs(deps, principal, scope, session_id)`: one partner session's hand-offs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx

from engine.clock import utcnow
from engine.errors import NotFound
from engine.principal import Principal
from engine.scope import require_scope
from engine.watch import delivery as rules
from engine.watch.delivery import DeliveryChannel
from graph.watch.deliveries import HandOffDeliveries, StoredHandOff
from jobs.concern.channel import SIGNATURE_HEADER, TIMESTAMP_HEADER, refusal, sign
from jobs.deps import Deps
from jobs.notify import GraphChangeHub, graph_changed, listen

log = logging.getLogger("storygraph.jobs.watch.delivery")

DELIVER_JOB = "deliver_watch_handoff"
WEBHOOK_TIMEOUT_SECONDS = 10.0
SESSION_LIMIT = 50


class DeliveryRetry(Exception):
    """An attempt failed with attempts left: run the job again after `seconds`."""

    def __init__(self, seconds: int) -> None:
        super().__init__(f"retry in {seconds} s")
        self.seconds = seconds


def delivery_job_id(execution_key: str) -> str:
    return f"watch-handoff:{execution_key}"


def _store(deps: Deps) -> HandOffDeliveries:
    return HandOffDeliveries(deps.driver, deps.database)


async def announce(deps: Deps, scope: str, execution_key: str, *, hint: bool = True) -> None:
    """Enqueue the delivery of a hand-off just stored, and tell the scope's listeners."""
    if deps.pool is None:
        return
    await deps.pool.enqueue_job(
        DELIVER_JOB,
        scope=scope,
        execution_key=execution_key,
        _job_id=delivery_job_id(execution_key),
        _queue_name=deps.settings.queue_name,
    )
    if hint:
        await graph_changed(
            deps.pool, scope, kind=rules.PAYLOAD_KIND, ids=[execution_key], by=deps.worker_id
        )


async def never_sent(deps: Deps, scope: str, execution_key: str) -> bool:
    """A stored hand-off whose delivery was never attempted (`pending`)."""
    stored = await _store(deps).get(scope, execution_key)
    return stored is not None and stored.delivery.status is rules.DeliveryStatus.PENDING


async def _post(deps: Deps, http: httpx.AsyncClient, url: str, stored: StoredHandOff) -> None:
    """One signed POST; raises httpx.HTTPError or ValueError (a non-2xx answer)."""
    handoff = stored.handoff
    body = json.dumps(rules.webhook_payload(stored.scope, handoff), ensure_ascii=False).encode()
    headers = {"Idempotency-Key": handoff.execution_key, "Content-Type": "application/json"}
    secret = deps.settings.concern_webhook_secret
    if secret is not None:
        stamp = str(int(utcnow().timestamp()))
        headers[TIMESTAMP_HEADER] = stamp
        headers[SIGNATURE_HEADER] = sign(secret.get_secret_value(), stamp, body)
    response = await http.post(url, content=body, headers=headers, timeout=WEBHOOK_TIMEOUT_SECONDS)
    if not response.is_success:
        raise ValueError(refusal(response))


async def deliver_handoff(
    deps: Deps,
    principal: Principal,
    *,
    scope: str,
    execution_key: str,
    http: httpx.AsyncClient,
) -> dict[str, Any]:
    """One delivery attempt of a stored hand-off; its state after the attempt."""
    principal.require("operator", scope)
    url = deps.settings.concern_webhook_url
    if not url:
        # no channel that can deliver it: pending until the session acknowledges it
        return {"executionKey": execution_key, "status": "pending"}
    store = _store(deps)
    now = deps.clock()
    claimed = await store.claim(scope, execution_key, worker_id=deps.worker_id, now=now)
    if claimed is None:
        return {"executionKey": execution_key, "status": "skipped"}
    attempts = claimed.delivery.attempts
    try:
        await _post(deps, http, url, claimed)
    except (httpx.HTTPError, ValueError) as exc:
        error = str(exc) or type(exc).__name__
        settled = rules.failed(attempts, error, deps.clock())
        log.warning(
            "watch hand-off not delivered",
            extra={"fields": {"key": execution_key, "attempts": attempts, "error": error}},
        )
    else:
        settled = rules.delivered(attempts, DeliveryChannel.WEBHOOK, deps.clock())
    await store.settle(scope, execution_key, settled.delivery)
    if settled.retry_in_seconds is not None:
        raise DeliveryRetry(settled.retry_in_seconds)
    return {
        "executionKey": execution_key,
        "status": settled.delivery.status.value,
        "attempts": attempts,
    }


async def acknowledge_handoff(
    deps: Deps, principal: Principal, scope: str, execution_key: str
) -> StoredHandOff:
    """The partner session's receipt of a hand-off it read; a repeat changes nothing."""
    checked = require_scope(principal, "editor", scope)
    store = _store(deps)
    found = await store.get(checked, execution_key)
    if found is None:
        raise NotFound(f"no hand-off {execution_key}", execution_key=execution_key)
    receipt = rules.acknowledged(found.delivery, principal.name, deps.clock())
    if receipt == found.delivery:
        return found
    await store.settle(checked, execution_key, receipt)
    return StoredHandOff(found.scope, found.handoff, receipt)


async def handoff_stream(
    deps: Deps, principal: Principal, scope: str, hub: GraphChangeHub | None
) -> AsyncIterator[StoredHandOff]:
    """The scope's new hand-offs, each once, as they are stored (the scope is checked before
    anything is awaited from Redis)."""
    checked = require_scope(principal, "reader", scope)
    if hub is not None:
        messages = hub.listen(checked)
    elif deps.pool is not None:
        messages = listen(deps.pool, checked)
    else:
        raise RuntimeError("hand-off subscriptions need Redis")
    store = _store(deps)
    async for message in messages:
        if message.get("kind") != rules.PAYLOAD_KIND:
            continue
        for key in message.get("ids") or []:
            found = await store.get(checked, str(key))
            if found is not None:
                yield found


async def session_handoffs(
    deps: Deps, principal: Principal, scope: str, session_id: str
) -> list[StoredHandOff]:
    """The hand-offs addressed to one partner session, newest first, with their delivery."""
    checked = require_scope(principal, "reader", scope)
    return await _store(deps).of_session(checked, session_id, SESSION_LIMIT)
