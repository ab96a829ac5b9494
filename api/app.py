"""The starlette application: one Neo4j driver and one arq pool per process (lifespan)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
from arq.connections import ArqRedis
from neo4j import AsyncDriver
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from api.auth import authenticate, check_binding, origin_allowed
from api.export import export_endpoint
from api.graphql_view import StorygraphGraphQL
from api.guide import guide_endpoint
from api.hosts import HostGate
from api.limits import BodyLimit, error_response
from api.mcp.server import McpEndpoint
from api.metrics import MetricsMiddleware, count_this_process, metrics_endpoint
from api.page_headers import PageHeaders
from engine.settings import PROJECT_ROOT, Settings
from graph.driver import API_PATIENCE_S, open_driver
from graph.migrate import migrate
from graph.startup import NOT_REACHABLE, migrate_when_available
from jobs.health import check_health
from jobs.llm.embeddings import build_embedder
from jobs.notify import GraphChangeHub
from jobs.redis_client import open_pool, queue_pool

log = logging.getLogger("storygraph.api")
WEB_DIR = PROJECT_ROOT / "web"
VENDOR_DIR = PROJECT_ROOT / "vendor"  # third-party browser assets, served from here, never a CDN


def create_app(settings: Settings) -> Starlette:
    verdict = check_binding(settings)
    mcp = McpEndpoint(settings)  # MCP for agents: same tokens, its session manager runs below

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.driver = open_driver(settings, patience_s=API_PATIENCE_S)
        app.state.neo4j_database = settings.neo4j_database  # /metrics reads the ledger totals
        app.state.pool = await open_pool_or_lazy(settings)
        # hybrid search embeds query texts (None without EMBEDDING_BASE_URL: lexical search)
        app.state.http = httpx.AsyncClient()
        app.state.embedder = build_embedder(settings, app.state.http)
        # one Redis subscriber for every graphChanged subscription of this process
        app.state.changes = GraphChangeHub(settings)
        changes = asyncio.create_task(app.state.changes.run(), name="graph-changes")
        schema: asyncio.Task[list[str]] | None = None
        try:
            schema = await migrate_or_wait(app.state.driver, settings.neo4j_database)
            log.info(verdict)
            count_this_process()
            async with mcp.running():
                settle_heap()
                yield
        finally:
            changes.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await changes
            if schema is not None:
                schema.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await schema
            await app.state.pool.aclose()
            await app.state.http.aclose()
            await app.state.driver.close()

    graphql = StorygraphGraphQL(settings)

    async def healthz(request: Request) -> JSONResponse:
        report = await check_health(request.app.state.driver, request.app.state.pool, settings)
        body = {"neo4j": report.neo4j, "redis": report.redis, "workers": report.workers}
        return JSONResponse(body, status_code=200 if report.healthy else 503)

    async def viz(_: Request) -> Response:
        page = WEB_DIR / "viz.html"
        if not page.exists():
            return JSONResponse({"error": "web/viz.html is missing"}, status_code=404)
        return FileResponse(page)

    async def favicon(_: Request) -> Response:
        # one SVG icon for every page (browsers ask /favicon.ico whatever the page links)
        return FileResponse(WEB_DIR / "favicon.svg", media_type="image/svg+xml")

    async def index(_: Request) -> Response:
        # The project's own Neo4j serves Browser on loopback; a configured server has its own.
        browser = (
            f"http://127.0.0.1:{settings.neo4j_http_port}/browser/"
            if not settings.neo4j_uri
            else "https://neo4j.com/docs/browser-manual/current/"
        )
        page = (WEB_DIR / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(page.replace("{{browser_url}}", browser))

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/graphql", TokenGate(graphql, settings), methods=["GET", "POST"]),
            Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
            Route("/export/{file}", TokenGate(export_endpoint(settings), settings)),
            Route("/healthz", healthz),
            Route("/favicon.ico", favicon),
            Route("/guide/storygraph.html", guide_endpoint, methods=["GET", "OPTIONS"]),
            Route("/metrics", MetricsGate(metrics_endpoint, settings)),
            Route("/viz", viz),
            Mount("/viz", StaticFiles(directory=WEB_DIR / "viz"), name="viz-assets"),
            Mount("/static", StaticFiles(directory=VENDOR_DIR), name="static"),
            WebSocketRoute("/graphql", TokenGate(graphql, settings)),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit, max_bytes=settings.api_max_body_bytes)
    app.add_middleware(MetricsMiddleware)
    app.add_middleware(PageHeaders, pages=WEB_DIR)
    app.add_middleware(HostGate, settings=settings)  # outermost: before anything reads it

    return app


def app_from_env() -> Starlette:
    """The app of one `storygraph serve --workers N` worker: its own settings from the
    environment (the parent put the host and port there), its own driver, pool and hub."""
    from jobs.logs import configure_logging
    from local.redis_server import with_redis_password

    settings = with_redis_password(Settings.from_env())
    configure_logging(settings.log_level, settings.log_format)
    return create_app(settings)


class TokenGate:
    """With tokens configured, no GraphQL operation runs without a valid bearer token.

    The GraphiQL page itself (a plain browser GET) loads without one, so a person can paste
    a token into its headers pane. Websockets carry their token in `connection_init`
    (`StorygraphGraphQL.on_ws_connect`). In every mode, a browser request from a page of
    another origin (not the API's own, not loopback, not `API_ALLOWED_ORIGINS`) is refused,
    so a web page a user visits cannot drive a local open API.
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not origin_allowed(self.settings, scope):
            if scope["type"] == "websocket":
                await WebSocket(scope, receive, send).close(code=4403, reason="origin not allowed")
            else:
                await _forbidden_origin()(scope, receive, send)
            return
        if self.settings.api_tokens and scope["type"] == "http":
            request = Request(scope)
            if (
                not _is_ide_page(request)
                and authenticate(self.settings, request.headers.get("authorization")) is None
            ):
                await _unauthenticated()(scope, receive, send)
                return
        await self.app(scope, receive, send)


class MetricsGate:
    """With tokens configured, `/metrics` answers only a valid bearer token of every scope
    (its figures, the cost ledger's totals among them, span all scopes); open mode serves
    loopback only (api/hosts.py)."""

    def __init__(self, endpoint: Callable[[Request], Awaitable[Response]], settings: Settings):
        self.endpoint = endpoint
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if self.settings.api_tokens:
            principal = authenticate(self.settings, request.headers.get("authorization"))
            if principal is None:
                await _unauthenticated()(scope, receive, send)
                return
            if not principal.all_scopes:
                refusal = error_response("/metrics needs a token of every scope", "FORBIDDEN", 403)
                await refusal(scope, receive, send)
                return
        response = await self.endpoint(request)
        await response(scope, receive, send)


def settle_heap() -> None:
    """What start-up built (modules, the schema, the driver's pool) lives as long as the
    process: moved out of the collector's reach (`gc.freeze`), a full collection no longer
    walks it. Before, each full collection of a worker walked ~190,000 objects for ~100 ms
    of CPU, a stall of every request in flight on that worker, every few hundred requests."""
    gc.collect()
    gc.freeze()


async def open_pool_or_lazy(settings: Settings) -> ArqRedis:
    """The arq pool; with Redis down the API still starts (health says redis: false and
    enqueueing answers UNAVAILABLE) and reconnects on its own once Redis is back."""
    try:
        return await open_pool(settings)
    except (RedisError, OSError) as exc:
        log.error(
            "Redis is unreachable; the API runs without it until it is back",
            extra={"fields": {"redis": settings.redacted_redis_url, "error": str(exc)}},
        )
        return queue_pool(settings)


async def migrate_or_wait(driver: AsyncDriver, database: str) -> asyncio.Task[list[str]] | None:
    """Migrate now; with Neo4j unreachable the API starts anyway (health says neo4j: false,
    requests answer UNAVAILABLE) and the migrations run in the background once it is back.
    Any other migration error stops the start, as before."""
    try:
        await migrate(driver, database)
        return None
    except NOT_REACHABLE as exc:
        log.error(
            "Neo4j is unreachable; the API starts without it and migrates when it is back",
            extra={"fields": {"error": str(exc) or type(exc).__name__}},
        )
    return asyncio.create_task(migrate_when_available(driver, database), name="migrate")


def _forbidden_origin() -> JSONResponse:
    return JSONResponse(
        {
            "errors": [
                {
                    "message": "requests from this page's origin are not allowed",
                    "extensions": {"code": "FORBIDDEN"},
                }
            ],
        },
        status_code=403,
    )


def _is_ide_page(request: Request) -> bool:
    return (
        request.method == "GET"
        and "text/html" in request.headers.get("accept", "")
        and not request.query_params.get("query")
        and not request.query_params.get("extensions")  # a persisted query is a read
    )


def _unauthenticated() -> JSONResponse:
    return JSONResponse(
        {
            "errors": [
                {
                    "message": "a valid bearer token is required",
                    "extensions": {"code": "UNAUTHENTICATED"},
                }
            ],
        },
        status_code=401,
    )
