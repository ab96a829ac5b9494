"""Per-process resources of the concern jobs, kept in the arq `ctx`, and the job clock.

- `gateway(ctx)`: the worker's model gateway (`ctx["gateway"]`: the HTTP model with the
  retry policy of docs/rules/watches.md#model-connection-errors when MODEL_BASE_URL is set,
  else the offline rule model), built by the worker's on_startup with the process's one
  `httpx.AsyncClient` (`ctx["http"]`); built here only when a caller (a test, the
  benchmark) hands in a bare ctx.
- `policy(ctx)`: `ConcernPolicy.from_settings(settings)`.
- `channel(ctx)`: where outbox rows go (`jobs/concern/channel.py`).

A job runs at the time it is given (the event time its enqueuer passed: a reply's timestamp,
the scan's `now`), else at the wall clock, so a test can move the clock through job arguments
alone: `Deps.from_ctx(ctx, now=now)`, as every task moves time.
"""

from __future__ import annotations

from typing import Any

import httpx

from engine.concern.policy import ConcernPolicy
from engine.settings import Settings
from jobs.concern.channel import Channel, channel_from_settings
from jobs.llm.gateway import HttpModelGateway, OfflineModelGateway, build_gateway


def settings_of(ctx: dict[str, Any]) -> Settings:
    settings: Settings = ctx["settings"]
    return settings


def http_client(ctx: dict[str, Any]) -> httpx.AsyncClient:
    if ctx.get("http") is None:
        ctx["http"] = httpx.AsyncClient(timeout=httpx.Timeout(30.0))
    client: httpx.AsyncClient = ctx["http"]
    return client


def gateway(ctx: dict[str, Any]) -> HttpModelGateway | OfflineModelGateway:
    if ctx.get("gateway") is None:
        ctx["gateway"] = build_gateway(settings_of(ctx), http=http_client(ctx))
    gw: HttpModelGateway | OfflineModelGateway = ctx["gateway"]
    return gw


def policy(ctx: dict[str, Any]) -> ConcernPolicy:
    if ctx.get("concern_policy") is None:
        ctx["concern_policy"] = ConcernPolicy.from_settings(settings_of(ctx))
    p: ConcernPolicy = ctx["concern_policy"]
    return p


def channel(ctx: dict[str, Any]) -> Channel:
    if ctx.get("concern_channel") is None:
        ctx["concern_channel"] = channel_from_settings(settings_of(ctx), http_client(ctx))
    ch: Channel = ctx["concern_channel"]
    return ch


async def close(ctx: dict[str, Any]) -> None:
    """Close the client `http_client` opened for a bare ctx (tests, the benchmark)."""
    client = ctx.pop("http", None)
    if client is not None:
        await client.aclose()
