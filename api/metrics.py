"""Prometheus metrics for the API, served at /metrics, labelled by process role.

With several API processes (`storygraph serve --workers N`) the counters, histograms and
gauges are kept in prometheus_client's multiprocess files (PROMETHEUS_MULTIPROC_DIR, set by
`serve` before the workers start), and any worker's /metrics answers their sum over every
worker, so one scrape sees the whole API rather than one N-th of it (docs/operations-redis.md).
The model-call collectors read this process's own memory and stay per process.
"""

from __future__ import annotations

import os
import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jobs.cost import ledger_totals
from jobs.llm.metrics import LedgerTotalsCollector, StageTokenCollector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
ROLE = "api"  # the process role every API metric carries (workers serve "worker")
REGISTRY = CollectorRegistry(auto_describe=True)
# what only this process knows (read from its memory, not summed over processes)
PROCESS_REGISTRY = CollectorRegistry(auto_describe=True)
REQUESTS = Counter(
    "storygraph_http_requests_total",
    "HTTP requests by process role, route and status",
    ["role", "route", "status"],
    registry=REGISTRY,
)
PROCESS_REGISTRY.register(StageTokenCollector())  # model calls made here, by stage and model
LATENCY = Histogram(
    "storygraph_http_request_seconds",
    "HTTP request latency by process role and route",
    ["role", "route"],
    registry=REGISTRY,
)
PROCESSES = Gauge(
    "storygraph_processes",
    "Live processes by role (summed over the API's worker processes)",
    ["role"],
    registry=REGISTRY,
    multiprocess_mode="livesum",
)


def count_this_process() -> None:
    """Counted once an app starts serving (not at import: `serve`'s parent imports too)."""
    PROCESSES.labels(ROLE).set(1)


def multiprocess() -> bool:
    """True when this process keeps its metrics in the shared multiprocess files."""
    return bool(os.environ.get(MULTIPROC_ENV))


class MetricsMiddleware:
    """Counts and times every HTTP request (websocket and lifespan traffic pass through)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = scope["path"] if scope["path"] in ("/graphql", "/healthz", "/metrics") else "other"
        status = {"code": 500}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        start = time.perf_counter()
        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            LATENCY.labels(ROLE, route).observe(time.perf_counter() - start)
            REQUESTS.labels(ROLE, route, str(status["code"])).inc()


async def metrics_endpoint(request: Request) -> Response:
    if multiprocess():  # every API worker's counters, histograms and gauges, summed
        shared = CollectorRegistry()
        MultiProcessCollector(shared)
        body = generate_latest(shared)
    else:
        body = generate_latest(REGISTRY)
    body += generate_latest(PROCESS_REGISTRY)
    state = request.app.state
    try:  # the cost ledger's totals of every worker's calls (a few nodes)
        totals = await ledger_totals(state.driver, state.neo4j_database)
    except Exception:  # noqa: BLE001 - Neo4j away: the process metrics still answer
        totals = None
    if totals is not None:
        ledger = CollectorRegistry()
        ledger.register(LedgerTotalsCollector(totals))
        body += generate_latest(ledger)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
