"""The storygraph MCP server (official `mcp` SDK): its tools, the `/mcp` endpoint
(streamable HTTP, mounted in the API's starlette app) and `storygraph mcp` (stdio).

HTTP runs stateless with JSON responses: no MCP session lives in an API process, so any
replica answers any request (docs/operations/scale-out.md). Every request is authenticated with the
GraphQL tokens before the SDK sees it; with tokens configured, one without a valid bearer
token is refused with 401. The SDK's session manager is entered inside the app's lifespan
(`McpEndpoint.running`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from api.auth import authenticate, is_loopback
from api.guards import InputLimits, check_sizes
from api.mcp import (
    concern_tools,
    diff_tools,
    review_tools,
    search_tools,
    signal_tools,
    source_tools,
    story_tools,
    watch_tools,
)
from api.mcp.access import CALLER_KEY, Caller, CallerSource, caller_from_request, failed
from engine.errors import InvalidInput
from engine.settings import Settings

log = logging.getLogger("storygraph.mcp")

INSTRUCTIONS = (
    "storygraph: a temporal story graph (stories, events, entities, relations, stage "
    "summaries, references to sources) and concerns (follow-up items with a goal). Reads "
    "answer what is known now; lists are paged (pass `next` back as `after`). Objects carry "
    "`standing`: state `suggested` readings as suggestions, never as fact. Concerns: "
    "raise_concern, advance_concern (record a reply), check_concerns; a concern is closed only "
    "by its agent loop."
)


class StorygraphMCP(MCPServer[Any]):
    """MCPServer whose tool arguments obey the same size limits as GraphQL's (strings, texts,
    lists: `api.guards`), checked before any tool runs, and whose argument-validation
    failures carry INVALID_INPUT like GraphQL's."""

    limits: InputLimits = InputLimits()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            check_sizes(name, arguments or {}, self.limits)
        except InvalidInput as exc:
            return failed(exc)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return failed(exc.__cause__)
            raise


def build_server(settings: Settings, caller_of: CallerSource) -> StorygraphMCP:
    server = StorygraphMCP(
        "storygraph",
        instructions=INSTRUCTIONS,
        version="0.1.0",
        log_level=settings.log_level.upper(),  # type: ignore[arg-type]
    )
    server.limits = InputLimits.of(settings)
    story_tools.register(server, caller_of)
    diff_tools.register(server, caller_of)
    signal_tools.register(server, caller_of)
    source_tools.register(server, caller_of)
    concern_tools.register(server, caller_of)
    review_tools.register(server, caller_of)
    watch_tools.register(server, caller_of)
    search_tools.register(server, caller_of)
    return server


def _security(settings: Settings) -> TransportSecuritySettings | None:
    """DNS-rebinding protection while bound to loopback (a browser page must not reach it)."""
    if not is_loopback(settings.api_host):
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


class McpEndpoint:
    """The ASGI app behind `/mcp`: authenticate, then hand over to the SDK."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.server = build_server(settings, caller_from_request)
        self.manager = StreamableHTTPSessionManager(
            app=self.server._lowlevel_server,
            json_response=True,
            stateless=True,
            security_settings=_security(settings),
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        principal = authenticate(self.settings, request.headers.get("authorization"))
        if principal is None:
            await _unauthenticated(scope, receive, send)
            return
        if request.method != "POST":
            # stateless streamable HTTP: no SSE stream to open with GET and no session to
            # end with DELETE (MCP spec, "Listening for Messages from the Server")
            await _not_allowed(scope, receive, send)
            return
        state = request.app.state
        scope[CALLER_KEY] = Caller(
            self.settings, state.driver, state.pool, principal, getattr(state, "embedder", None)
        )
        await self.manager.handle_request(scope, receive, send)


async def _unauthenticated(scope: Scope, receive: Receive, send: Send) -> None:
    from starlette.responses import JSONResponse

    response = JSONResponse(
        {"error": {"code": "UNAUTHENTICATED", "message": "a valid bearer token is required"}},
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer realm="storygraph"'},
    )
    await response(scope, receive, send)


async def _not_allowed(scope: Scope, receive: Receive, send: Send) -> None:
    from starlette.responses import JSONResponse

    response = JSONResponse(
        {
            "error": {
                "code": "METHOD_NOT_ALLOWED",
                "message": "this MCP server is stateless: send each JSON-RPC message as a POST",
            }
        },
        status_code=405,
        headers={"Allow": "POST"},
    )
    await response(scope, receive, send)


async def serve_stdio(settings: Settings, token: str | None) -> None:
    """`storygraph mcp`: one local agent host over stdin/stdout, as the token's principal
    (with no tokens configured, the open loopback principal, like the API on loopback)."""
    from graph.driver import open_driver
    from jobs.queue import open_pool

    principal = authenticate(settings, f"Bearer {token}" if token else None)
    if principal is None:
        raise PermissionError(
            "API_TOKENS is set: pass --token (or STORYGRAPH_TOKEN) of one of them"
        )
    driver = open_driver(settings)
    pool = await open_pool(settings)
    caller = Caller(settings, driver, pool, principal)
    try:
        await build_server(settings, lambda _ctx: caller).run_stdio_async()
    finally:
        await pool.aclose()
        await driver.close()
