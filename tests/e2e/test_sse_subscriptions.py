"""Subscriptions over GraphQL over Server-Sent Events, with graphql-sse's own npm
client in distinct connections mode against the real API: `graphChanged` and `runProgress`
answer with the same token and scope checks as over websockets, and a malformed SSE request
is a clear 4xx."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import pytest_asyncio
import websockets
from neo4j import AsyncDriver

from engine.review import lifecycle as lc
from engine.review.types import Scope, StageName, Trigger
from engine.settings import Settings
from graph.review.codec import RunOptions
from graph.review.runs import SupervisionRuns
from tests.support.js_clients import SseSubscription
from tests.support.processes import Server
from tests.support.story_api import PUBLISH

EDITOR, SCOPED = "sse-editor-token", "sse-scoped-token"
CHANGED = "subscription($s: String!) { graphChanged(scope: $s) { scope kind ids } }"
PROGRESS = "subscription($id: String!) { runProgress(runId: $id) { runId status } }"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def scopes() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"sse-a-{tag}", f"sse-b-{tag}"


@pytest.fixture(scope="module")
def api(start_server: Callable[..., Server], scopes: tuple[str, str]) -> Server:
    tokens = [
        {"token": EDITOR, "name": "sse-editor", "scopes": ["*"], "roles": ["reader", "editor"]},
        {"token": SCOPED, "name": "sse-scoped", "scopes": [scopes[0]], "roles": ["reader"]},
    ]
    return start_server(API_TOKENS=json.dumps(tokens))


@pytest_asyncio.fixture
async def run_of_b(
    neo4j_driver: AsyncDriver, services: Settings, scopes: tuple[str, str]
) -> AsyncIterator[str]:
    """A failed supervision run of scope B (its progress is one answer, then the end)."""
    run_id = f"sup-sse-{uuid.uuid4().hex[:10]}"
    run = lc.create_run(
        run_id=run_id, scope=Scope.projects(scopes[1]), trigger=Trigger.AUTOMATIC,
        mode=lc.ReviewMode.INCREMENTAL, worker_id="gone", per_batch=100,
        stage_timeout=timedelta(seconds=60), now=T0,
    )  # fmt: skip
    error = lc.RunError(stage=StageName.LEAVES, kind=lc.ErrorKind.VALIDATION, message="invalid")
    failed = run.model_copy(
        update={"status": lc.RunStatus.FAILED, "stopped": True, "ended_at": T0, "error": error}
    )
    runs = SupervisionRuns(neo4j_driver, services.neo4j_database, deployment=services.queue_name)
    await runs.create(failed, RunOptions())
    yield run_id
    await neo4j_driver.execute_query(
        "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n",
        scopes=list(scopes),
        database_=services.neo4j_database,
    )


def one_event(scope: str) -> dict[str, Any]:
    event = {"ref": "e", "title": "提测", "at": "2026-03-16T10:00:00Z"}
    return {"scope": scope, "key": f"k-{uuid.uuid4().hex[:6]}", "events": [event]}


async def sse(
    api: Server, token: str | None, query: str, events: int = 1, **variables: Any
) -> SseSubscription:
    return await SseSubscription.start(f"{api.url}/graphql", token, query, variables, events=events)


async def over_websocket(api: Server, token: str, query: str, **variables: Any) -> Any:
    """The first message a graphql-transport-ws subscriber gets, for comparison."""
    url = api.url.replace("http://", "ws://") + "/graphql"
    async with websockets.connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": {
            "Authorization": f"Bearer {token}"}}))  # fmt: skip
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        payload = {"query": query, "variables": variables}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        return json.loads(await asyncio.wait_for(ws.recv(), timeout=10))


def codes(payload: dict[str, Any]) -> list[str]:
    return [e["extensions"]["code"] for e in payload.get("errors") or []]


async def test_graph_changed_over_sse_reaches_a_reader_of_the_scope(
    api: Server, scopes: tuple[str, str]
) -> None:
    client = await sse(api, SCOPED, CHANGED, s=scopes[0])
    try:
        assert (await client.line())["event"] == "connected"
        # the stream is open; the subscription registers with the process's hub shortly after,
        # so publish until one change arrives (each publish is a new change of the scope)
        got: dict[str, Any] | None = None
        for _ in range(20):
            answer = await asyncio.to_thread(
                api.graphql, PUBLISH, {"input": one_event(scopes[0])}, EDITOR
            )
            assert answer.json().get("data"), answer.text
            try:
                got = await client.line(timeout_s=1.0)
                break
            except TimeoutError:
                continue
        assert got is not None and got["event"] == "next", got
        change = got["payload"]["data"]["graphChanged"]
        assert (change["scope"], change["kind"]) == (scopes[0], "result")
    finally:
        await client.close()


async def test_another_scope_over_sse_is_forbidden_like_over_websockets(
    api: Server, scopes: tuple[str, str]
) -> None:
    client = await sse(api, SCOPED, CHANGED, s=scopes[1])
    try:
        assert (await client.line())["event"] == "connected"
        got = await client.line()
        assert got["event"] == "next" and codes(got["payload"]) == ["FORBIDDEN"], got
        assert scopes[1] not in json.dumps(got)
    finally:
        await client.close()
    ws = await over_websocket(api, SCOPED, CHANGED, s=scopes[1])
    ws_codes = [e["extensions"]["code"] for e in ws["payload"]] if ws["type"] == "error" else (
        codes(ws["payload"]))  # fmt: skip
    assert ws_codes == ["FORBIDDEN"], ws


async def test_run_progress_over_sse_follows_a_run_and_hides_another_scopes_run(
    api: Server, run_of_b: str
) -> None:
    client = await sse(api, EDITOR, PROGRESS, events=5, id=run_of_b)
    try:
        assert (await client.line())["event"] == "connected"
        got = await client.line()
        assert got["event"] == "next", got
        assert got["payload"]["data"]["runProgress"] == {"runId": run_of_b, "status": "failed"}
        assert (await client.line())["event"] == "complete"  # the run has ended
    finally:
        await client.close()
    hidden = await sse(api, SCOPED, PROGRESS, id=run_of_b)
    try:
        assert (await hidden.line())["event"] == "connected"
        got = await hidden.line()
        assert codes(got["payload"]) == ["NOT_FOUND"], got
    finally:
        await hidden.close()


@pytest.mark.parametrize("token", [None, "forged-token", f"{EDITOR}x"])
async def test_sse_without_a_valid_token_is_401_before_any_stream(
    api: Server, scopes: tuple[str, str], token: str | None
) -> None:
    client = await sse(api, token, CHANGED, s=scopes[0])
    try:
        got = await client.line()
        assert got["event"] == "error" and got["status"] == 401, got
        assert json.loads(got["body"])["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    finally:
        await client.close()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "BAD_REQUEST"),
        (b'{"variables": {}}', "BAD_REQUEST"),
        (b'[{"query": "subscription { graphChanged(scope: \\"x\\") { scope } }"}]', "BAD_REQUEST"),
        (b'{"query": 7}', "BAD_REQUEST"),
    ],
)
def test_a_malformed_sse_request_is_a_clear_400(api: Server, body: bytes, code: str) -> None:
    r = httpx.post(
        f"{api.url}/graphql",
        content=body,
        headers={
            "authorization": f"Bearer {EDITOR}",
            "accept": "text/event-stream",
            "content-type": "application/json",
        },
        timeout=10,
    )
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["errors"][0]["extensions"]["code"] == code


@pytest.mark.parametrize(
    "query", ["subscription { graphChanged(scope: ", "subscription { noSuchField }"]
)
async def test_a_document_that_does_not_validate_is_reported_in_the_stream_with_a_code(
    api: Server, query: str
) -> None:
    """graphql-sse's protocol: validation errors travel through the accepted stream as a
    `next` event (a 400 would leave a browser's EventSource without the reason)."""
    client = await sse(api, EDITOR, query, events=5)
    try:
        assert (await client.line())["event"] == "connected"
        got = await client.line()
        assert got["event"] == "next" and codes(got["payload"]) == ["INVALID_INPUT"], got
        assert "data" not in got["payload"]
        assert (await client.line())["event"] == "complete"
    finally:
        await client.close()


MULTIPART = 'multipart/mixed;subscriptionSpec="1.0", application/json'


async def test_graph_changed_over_multipart_http_the_way_apollo_client_subscribes(
    api: Server, scopes: tuple[str, str]
) -> None:
    body = {"query": CHANGED, "variables": {"s": scopes[0]}}
    headers = {"authorization": f"Bearer {SCOPED}", "accept": MULTIPART}
    async with (
        httpx.AsyncClient(timeout=30) as client,
        client.stream("POST", f"{api.url}/graphql", json=body, headers=headers) as r,
    ):
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("multipart/mixed")
        seen: list[str] = []

        async def read() -> None:
            async for chunk in r.aiter_text():
                seen.append(chunk)

        reader = asyncio.ensure_future(read())
        deadline = time.monotonic() + 30
        while '"payload"' not in "".join(seen):
            assert time.monotonic() < deadline, seen
            event = {"ref": "e", "title": "提测", "at": "2026-03-16T10:00:00Z"}
            result = {"scope": scopes[0], "key": uuid.uuid4().hex[:8], "events": [event]}
            await asyncio.to_thread(api.graphql, PUBLISH, {"input": result}, EDITOR)
            await asyncio.wait([reader], timeout=1.0)  # the change travels while we wait
        reader.cancel()
        text = "".join(seen)
        part = text[text.index('{"payload"') :].split("\r\n", 1)[0]
        change = json.loads(part)["payload"]["data"]["graphChanged"]
        assert change == {"scope": scopes[0], "kind": "result", "ids": change["ids"]}
    async with httpx.AsyncClient(timeout=10) as client:
        forged = await client.post(
            f"{api.url}/graphql",
            json=body,
            headers={"authorization": "Bearer forged", "accept": MULTIPART},
        )
    assert forged.status_code == 401
