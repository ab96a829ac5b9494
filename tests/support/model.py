"""Test doubles for the model client: a controllable clock and sleep, a scripted
in-memory transport (httpx.MockTransport), canned transport failures, and a recorder of
backoff waits — the HTTP path is covered for real by tests/integration/llm against the
scripted server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from engine.llm.accounting import Accounting
from jobs.llm.client import OpenAIChatClient


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0
        self.base = datetime(2026, 3, 17, 2, 0, tzinfo=UTC)

    def monotonic(self) -> float:
        return self.t

    def now(self) -> datetime:
        return self.base + timedelta(seconds=self.t - 1000.0)

    def advance(self, seconds: float) -> None:
        self.t += seconds


class RecordingSleep:
    """Sleeps no real time: records each wait and moves the fake clock on."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.clock.advance(seconds)


def completion(
    text: str = "ok",
    tool_calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (5, 3),
) -> httpx.Response:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for c in tool_calls
        ]
    return httpx.Response(
        200,
        json={
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                }
            ],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
        },
    )


def sse(
    chunks: list[dict[str, Any]], *, done: bool = True, then_raise: BaseException | None = None
) -> httpx.Response:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield f"data: {json.dumps(chunk)}\n\n".encode()
        if then_raise is not None:
            raise then_raise
        if done:
            yield b"data: [DONE]\n\n"

    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())


def text_chunk(text: str) -> dict[str, Any]:
    return {
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }


def finish_chunk(reason: str = "stop") -> dict[str, Any]:
    return {"model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


def tool_chunk(
    index: int, args: str, call_id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": args}
    if name:
        fn["name"] = name
    call: dict[str, Any] = {"index": index, "function": fn}
    if call_id:
        call["id"] = call_id
    return {
        "model": "m",
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}],
    }


Step = httpx.Response | BaseException | Callable[[httpx.Request], Awaitable[httpx.Response]]


class Script:
    """One step per HTTP request: a response, an exception to raise, or an async callable.
    `latency` advances the fake clock on each request (time spent on the wire)."""

    def __init__(self, clock: FakeClock, *steps: Step, latency: float = 0.0) -> None:
        self.clock = clock
        self.steps = list(steps)
        self.requests: list[httpx.Request] = []
        self.latency = latency

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.clock.advance(self.latency)
        if not self.steps:
            raise AssertionError("script exhausted: more requests than scripted")
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, httpx.Response):
            return step
        return await step(request)

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def make_client(
    script: Script,
    clock: FakeClock,
    sleep: RecordingSleep,
    *,
    deadline: float = 180.0,
    request_timeout: float = 60.0,
    accounting: Accounting | None = None,
) -> tuple[OpenAIChatClient, httpx.AsyncClient]:
    http = httpx.AsyncClient(transport=httpx.MockTransport(script))
    client = OpenAIChatClient(
        http,
        base_url="http://model.test/v1",
        model="m",
        api_key="k",
        deadline_seconds=deadline,
        request_timeout_seconds=request_timeout,
        accounting=accounting or Accounting(4),
        clock=clock,
        sleep=sleep,
    )
    return client, http


def error(
    status: int, message: str = "boom", headers: dict[str, str] | None = None
) -> httpx.Response:
    return httpx.Response(status, json={"error": {"message": message}}, headers=headers)


def reset() -> httpx.ReadError:
    try:
        raise ConnectionResetError(104, "Connection reset by peer")
    except ConnectionResetError as exc:
        try:
            raise httpx.ReadError("") from exc
        except httpx.ReadError as wrapped:
            return wrapped


class WaitRecorder:
    """Injected sleep: records backoff waits instead of sleeping them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
