"""Prometheus metrics for the API process, served at /metrics."""

from __future__ import annotations

import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jobs.llm.cost import ledger_totals
from jobs.llm.metrics import LedgerTotalsCollector, StageTokenCollector

REGISTRY = CollectorRegistry(auto_describe=True)
REQUESTS = Counter(
    "storygraph_http_requests_total",
    "HTTP requests by route and status",
    ["route", "status"],
    registry=REGISTRY,
)
REGISTRY.register(StageTokenCollector())  # model calls made in this process, by stage and model
LATENCY = Histogram(
    "storygraph_http_request_seconds", "HTTP request latency by route", ["route"], registry=REGISTRY
)


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
            LATENCY.labels(route).observe(time.perf_counter() - start)
            REQUESTS.labels(route, str(status["code"])).inc()


async def metrics_endpoint(request: Request) -> Response:
    body = generate_latest(REGISTRY)
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
