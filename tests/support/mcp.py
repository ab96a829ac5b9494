"""MCP clients for the e2e tests: the SDK's own client over streamable HTTP (with a bearer
token) and over stdio (`storygraph mcp`), and helpers to read tool answers."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from engine.settings import PROJECT_ROOT


@asynccontextmanager
async def http_client(base_url: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
        async with Client(transport, cache=None) as client:
            yield client


def stdio_client(env: dict[str, str], *args: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "api.cli", "mcp", *args], env=env, cwd=PROJECT_ROOT
    )
    return Client(params, cache=None)


def body(result: CallToolResult) -> dict[str, Any]:
    """The answer of a successful tool call."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_code(result: CallToolResult) -> str:
    """The code of a tool error (the same as GraphQL's `extensions.code`)."""
    assert result.is_error, result.structured_content
    text = result.content[0].text  # type: ignore[union-attr]
    structured = result.structured_content or {}
    code = str(structured["error"]["code"])
    assert text.startswith(f"{code}:"), text
    return code


def dumps(result: CallToolResult) -> str:
    return json.dumps(result.model_dump(mode="json"), ensure_ascii=False)


async def all_pages(client: Client, tool: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of a list tool, in order, following each answer's `next` cursor."""
    pages: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        got = body(await client.call_tool(tool, {**args, **({"after": after} if after else {})}))
        pages.append(got)
        after = got["next"]
        if after is None:
            return pages
