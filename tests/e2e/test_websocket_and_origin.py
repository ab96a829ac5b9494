"""Websockets are authenticated like HTTP, and a page of another origin cannot drive the API.

In open mode (loopback, no tokens) any web page the user visits could otherwise open
`ws://127.0.0.1:8000/graphql` and run mutations as admin; with tokens, browsers cannot send
an Authorization header on a websocket, so the token travels in `connection_init`.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.support.processes import Server

TOKENS = json.dumps(
    [{"token": "t-reader", "name": "reader-app", "scopes": ["p1"], "roles": ["reader"]}]
)
HEALTH = "query { health { neo4j } }"


def ws_url(api: Server) -> str:
    return api.url.replace("http://", "ws://") + "/graphql"


async def run_over_ws(
    api: Server, init: dict[str, Any] | None = None, origin: str | None = None
) -> dict[str, Any]:
    """Connect, init (with `init` as payload), run HEALTH; the first message back."""
    async with websockets.connect(
        ws_url(api),
        subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
        origin=origin,  # type: ignore[arg-type]
    ) as ws:
        message: dict[str, Any] = {"type": "connection_init"}
        if init is not None:
            message["payload"] = init
        await ws.send(json.dumps(message))
        ack = json.loads(await ws.recv())
        assert ack["type"] == "connection_ack", ack
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": HEALTH}}))
        answer: dict[str, Any] = json.loads(await ws.recv())
        return answer


@pytest.fixture(scope="module")
def guarded(start_server) -> Server:  # type: ignore[no-untyped-def]
    return start_server(API_TOKENS=TOKENS)


async def test_with_tokens_a_websocket_without_one_is_closed_before_any_operation(
    guarded: Server,
) -> None:
    with pytest.raises(ConnectionClosed) as closed:
        await run_over_ws(guarded)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403


async def test_with_tokens_a_wrong_token_in_connection_init_is_closed(guarded: Server) -> None:
    with pytest.raises(ConnectionClosed) as closed:
        await run_over_ws(guarded, {"Authorization": "Bearer not-a-token"})
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403


async def test_the_token_in_connection_init_authenticates_the_websocket(guarded: Server) -> None:
    answer = await run_over_ws(guarded, {"Authorization": "Bearer t-reader"})
    assert answer["type"] == "next", answer
    assert answer["payload"]["data"]["health"]["neo4j"] is True


async def test_a_page_of_another_origin_cannot_open_a_websocket_to_an_open_api(
    api: Server,
) -> None:
    with pytest.raises((InvalidStatus, ConnectionClosed)):
        await run_over_ws(api, origin="https://evil.example")
    # the API's own origin and loopback pages may
    answer = await run_over_ws(api, origin=api.url)
    assert answer["type"] == "next"
    answer = await run_over_ws(api, origin="http://localhost:5173")
    assert answer["type"] == "next"


def test_a_page_of_another_origin_cannot_post_a_mutation_to_an_open_api(api: Server) -> None:
    response = httpx.post(
        f"{api.url}/graphql",
        json={"query": 'mutation { enqueueProbe(note: "from evil") { id } }'},
        headers={"origin": "https://evil.example"},
        timeout=30,
    )
    assert response.status_code == 403
    assert response.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    own = httpx.post(
        f"{api.url}/graphql", json={"query": HEALTH}, headers={"origin": api.url}, timeout=30
    )
    assert own.status_code == 200 and own.json()["data"]["health"]["neo4j"] is True


async def test_one_websocket_runs_at_most_the_configured_number_of_subscriptions(
    start_server,  # type: ignore[no-untyped-def]
) -> None:
    """WS_MAX_SUBSCRIPTIONS, apart from the operations limit: one more subscription answers
    RATE_LIMITED; ending one frees its slot."""
    api = start_server(WS_MAX_SUBSCRIPTIONS="2")
    changes = 'subscription { graphChanged(scope: "p1") { scope } }'
    async with websockets.connect(
        ws_url(api),
        subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
    ) as ws:
        await ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"

        async def subscribe(op: str) -> None:
            payload = {"query": changes}
            await ws.send(json.dumps({"id": op, "type": "subscribe", "payload": payload}))

        await subscribe("1")
        await subscribe("2")
        await subscribe("3")
        refused = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
        assert refused["id"] == "3", refused
        errors = refused["payload"] if refused["type"] == "error" else refused["payload"]["errors"]
        assert errors[0]["extensions"]["code"] == "RATE_LIMITED", refused
        assert "at most 2" in errors[0]["message"]
        # queries still run beside the two subscriptions
        await ws.send(json.dumps({"id": "q", "type": "subscribe", "payload": {"query": HEALTH}}))
        answers = []
        while not any(a.get("id") == "q" and a["type"] == "next" for a in answers):
            answers.append(json.loads(await asyncio.wait_for(ws.recv(), timeout=10)))
        # ending one frees its slot, once the server has ended it: a subscription sent
        # before that is refused, so the test sends another until one is accepted (no answer
        # but its changes: silent for 2 s), within a deadline
        await ws.send(json.dumps({"id": "1", "type": "complete"}))
        deadline = time.monotonic() + 30
        for n in range(4, 1000):
            await subscribe(str(n))
            try:
                message: dict[str, Any] = {}
                while message.get("id") != str(n):  # skipping the end of the query "q"
                    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=2))
            except TimeoutError:
                break  # accepted
            assert message.get("id") == str(n) and message["type"] != "next", message
            assert "RATE_LIMITED" in json.dumps(message), message
            assert time.monotonic() < deadline, "the ended subscription never freed its slot"
