"""Subscriptions over Server-Sent Events count per token, like a websocket's: past
WS_MAX_SUBSCRIPTIONS streams of one token at once, one more answers RATE_LIMITED."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack

import httpx

from tests.support.polling import until_async
from tests.support.processes import Server

CHANGES = {"query": 'subscription { graphChanged(scope: "p1") { scope } }'}
SSE = {"accept": "text/event-stream", "content-type": "application/json"}


async def first_event(response: httpx.Response, wait_s: float) -> str | None:
    """The first `data:` line of a stream within `wait_s` seconds, or None (it is quiet)."""

    async def read() -> str | None:
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                return line[5:].strip()
        return None

    try:
        return await asyncio.wait_for(read(), wait_s)
    except TimeoutError:
        return None


async def test_one_token_runs_at_most_the_configured_number_of_streams(start_server) -> None:  # type: ignore[no-untyped-def]
    api: Server = start_server(WS_MAX_SUBSCRIPTIONS="2")
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        for _ in range(2):
            held = await stack.enter_async_context(
                client.stream("POST", f"{api.url}/graphql", headers=SSE, json=CHANGES)
            )
            assert held.status_code == 200
        # the two streams hold their slots once the server started them: a third is sent
        # until one is refused, within a deadline

        async def third_refused() -> dict[str, object] | None:
            async with client.stream(
                "POST", f"{api.url}/graphql", headers=SSE, json=CHANGES
            ) as third:
                data = await first_event(third, 2)
            return json.loads(data) if data and "RATE_LIMITED" in data else None

        refused = await until_async(third_refused, what="a third stream of the token refused")
        assert "at most 2" in json.dumps(refused, ensure_ascii=False)
