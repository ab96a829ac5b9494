"""Who is calling an MCP tool, with which process resources, and how failures come back.

Over HTTP the endpoint (`api.mcp.http`) authenticates every request with the same bearer
tokens as GraphQL (`api.auth.authenticate`) and leaves a `Caller` in the ASGI scope; a tool
reads it from the request the SDK hands it. Over stdio there is no request: the process has
one caller, fixed at start (`storygraph mcp`).

Failures are MCP tool errors (`isError: true`) whose text starts with the same code GraphQL
puts in `extensions.code` and whose structured content is `{"error": {"code", "message"}}`.
The mapping is GraphQL's own (`api.errors.shape_error`), so an unexpected failure is masked
behind a request id here exactly as it is there.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from arq.connections import ArqRedis
from graphql.error import GraphQLError
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from neo4j import AsyncDriver

from api.errors import shape_error
from engine.errors import Forbidden, NotFound, Unauthenticated
from engine.principal import Principal
from engine.settings import Settings
from jobs.llm.embeddings import Embedder

CALLER_KEY = "storygraph.mcp.caller"


@dataclass(frozen=True)
class Caller:
    """Process resources plus the principal of one MCP request (or of the stdio process)."""

    settings: Settings
    driver: AsyncDriver
    pool: ArqRedis
    principal: Principal | None
    embedder: Embedder | None = None  # hybrid search (EMBEDDING_BASE_URL)

    @property
    def database(self) -> str:
        return self.settings.neo4j_database

    def require(self, role: str, scope: str | None = None) -> Principal:
        """The GraphQL resolver's role check; a scope the token may not use reads as NOT_FOUND
        (docs/architecture/index.md: no error names such a scope)."""
        if self.principal is None:
            raise Unauthenticated("a valid bearer token is required")
        if not self.principal.has_role(role):
            raise Forbidden(f"this token lacks the {role!r} role", role=role)
        if scope is not None and not self.principal.can_scope(scope):
            raise NotFound("nothing found")
        return self.principal


CallerSource = Callable[[Context], Caller]


def caller_from_request(ctx: Context) -> Caller:
    """The caller the HTTP endpoint left in the request's ASGI scope."""
    request = ctx.request_context.request
    scope = getattr(request, "scope", None)
    caller = scope.get(CALLER_KEY) if isinstance(scope, dict) else None
    if not isinstance(caller, Caller):
        raise Unauthenticated("a valid bearer token is required")
    return caller


def instants_iso(value: object) -> str:
    """`json.dumps`'s default for an MCP answer: an instant (or a date) in ISO 8601, as the
    GraphQL DateTime scalar writes it (`2026-12-04T23:09:59.676946+00:00`), anything else
    as its text."""
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def ok(body: dict[str, Any]) -> CallToolResult:
    """A tool answer: the JSON a model reads, and the same object as structured content."""
    text = json.dumps(body, ensure_ascii=False, default=instants_iso)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=json.loads(text)
    )


def failed(exc: Exception) -> CallToolResult:
    """A tool error carrying GraphQL's code for the same failure."""
    shaped = shape_error(GraphQLError(str(exc), original_error=exc))
    extensions = shaped.extensions or {}
    code = str(extensions.get("code", "INTERNAL"))
    details = {k: v for k, v in extensions.items() if k != "code"}
    error = {"code": code, "message": shaped.message, **details}
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code}: {shaped.message}")],
        structured_content={"error": error},
        is_error=True,
    )


async def answer(work: Awaitable[dict[str, Any]]) -> CallToolResult:
    """Run a tool's work; every failure becomes a coded tool error, never a stack trace."""
    try:
        return ok(await work)
    except Exception as exc:  # noqa: BLE001 - shaped (and masked when unexpected) below
        return failed(exc)
