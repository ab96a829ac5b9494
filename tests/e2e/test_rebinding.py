"""A web page that rebinds its own name to 127.0.0.1 cannot drive a local API: the Host it
names is not loopback (nor, with tokens, one of API_PUBLIC_HOSTS), so HTTP, websockets,
Server-Sent Events and `/mcp` all refuse it before anything runs."""

from __future__ import annotations

import json

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.support.processes import Server

REBOUND = "attacker.example:8000"
SCOPES = "query { scopes { __typename } }"


def test_an_open_api_refuses_a_request_naming_a_rebound_host(api: Server) -> None:
    headers = {"host": REBOUND, "origin": f"http://{REBOUND}"}
    response = httpx.post(f"{api.url}/graphql", json={"query": SCOPES}, headers=headers)
    assert response.status_code == 421, response.text
    assert response.json()["errors"][0]["extensions"]["code"] == "MISDIRECTED_REQUEST"
    assert "data" not in response.json()
    # the same request naming the loopback host it really reached is answered
    own = httpx.post(f"{api.url}/graphql", json={"query": SCOPES})
    assert own.status_code == 200 and "data" in own.json(), own.text


def test_an_open_api_refuses_the_rebound_host_on_every_surface(api: Server) -> None:
    headers = {"host": REBOUND, "origin": f"http://{REBOUND}"}
    sse = httpx.post(
        f"{api.url}/graphql",
        json={"query": 'subscription { graphChanged(scope: "p1") { scope } }'},
        headers={**headers, "accept": "text/event-stream"},
    )
    mcp = httpx.post(
        f"{api.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={**headers, "accept": "application/json, text/event-stream"},
    )
    for answer in (sse, mcp, httpx.get(f"{api.url}/metrics", headers=headers)):
        assert answer.status_code == 421, (answer.request.url, answer.text)


async def test_an_open_api_closes_a_websocket_naming_a_rebound_host(api: Server) -> None:
    url = api.url.replace("http://", "ws://") + "/graphql"
    with pytest.raises((InvalidStatus, ConnectionClosed)):
        async with websockets.connect(
            url,
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
            origin=f"http://{REBOUND}",  # type: ignore[arg-type]
            additional_headers={"Host": REBOUND},
        ) as ws:
            await ws.send(json.dumps({"type": "connection_init"}))
            await ws.recv()


def test_with_tokens_only_the_configured_public_host_is_answered(start_server) -> None:  # type: ignore[no-untyped-def]
    tokens = json.dumps([{"token": "t-admin", "name": "ops", "scopes": ["*"], "roles": ["admin"]}])
    api = start_server(API_TOKENS=tokens, API_PUBLIC_HOSTS='["graph.example.org"]')
    auth = {"authorization": "Bearer t-admin"}
    public = httpx.post(
        f"{api.url}/graphql",
        json={"query": SCOPES},
        headers={**auth, "host": "graph.example.org"},
    )
    assert public.status_code == 200 and "data" in public.json(), public.text
    other = httpx.post(
        f"{api.url}/graphql", json={"query": SCOPES}, headers={**auth, "host": REBOUND}
    )
    assert other.status_code == 421, other.text
