"""GraphQL helpers for the story e2e tests: publish and upsert documents, a result to
publish, reading `data` or the error code of an answer, and the first change each
graphChanged subscriber hears."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

PUBLISH = """
mutation($input: PublishResultInput!) {
  publishResult(input: $input, runId: "run-e2e") { repeat result { id key warnings } }
}"""
UPSERT = """
mutation($input: UpsertSourceInput!) { upsertSource(input: $input) { id currentVersion } }"""


def data(response: Any) -> dict[str, Any]:
    body = response.json()
    assert "errors" not in body, body.get("errors")
    return body["data"]


def error_code(response: Any) -> str:
    return response.json()["errors"][0]["extensions"]["code"]


def result_input(scope: str, key: str, *, description: str = "后端支付模块") -> dict[str, Any]:
    return {
        "scope": scope,
        "key": key,
        "events": [
            {
                "ref": "e1",
                "title": "张三：支付模块卡在第三方回调",
                "at": "2026-03-17T13:20:00+08:00",
                "references": [{"sourceId": "chat", "sourceVersion": "v1", "locator": "lines:1-1"}],
            }
        ],
        "entities": [
            {"ref": "pay", "name": "支付模块", "status": "MAIN", "description": description},
            {"ref": "cb", "name": "第三方回调接口", "status": "MAIN"},
        ],
        "changes": [{"event": "e1", "entity": "pay", "kind": "REVISED"}],
        "relations": [
            {"ref": "r1", "from": "pay", "to": "cb", "type": "blocked_by", "reason": "沙箱未到"}
        ],
    }


async def first_changes(
    sockets: Sequence[Any], write: Callable[[int], Awaitable[None]], within_s: float = 60
) -> list[dict[str, Any]]:
    """The first message each graphql-transport-ws socket receives, writing (`write(n)`, a
    new change each time) until every socket has heard one: a subscription registers with
    the API's hub some moment after it was sent, which no answer tells, so the test polls by
    writing again instead of sleeping."""
    heard: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + within_s
    attempt = 0
    while len(heard) < len(sockets) and time.monotonic() < deadline:
        await write(attempt)
        attempt += 1
        for i, ws in enumerate(sockets):
            if i not in heard:
                try:
                    heard[i] = json.loads(await asyncio.wait_for(ws.recv(), timeout=0.5))
                except TimeoutError:
                    pass
    assert len(heard) == len(sockets), f"{len(sockets) - len(heard)} sockets heard nothing"
    return [heard[i] for i in range(len(sockets))]
