"""A scripted OpenAI-compatible chat-completions server for tests: the model is the
one stand-in the suite allows (docs/testing.md).

A small starlette app on loopback, served by uvicorn in a background thread:
- `POST /v1/chat/completions`, streamed (SSE) and not, answers from a queue of scripted
  replies, one per request, in order (`server.script(reply, ...)`);
- faults: any status code (with Retry-After), connection reset (RST) part-way through a
  stream or body, abrupt close without TLS close_notify (on the TLS listener that is a real
  TLS EOF; on plain HTTP a cut chunked body), slow replies (before or between chunks);
- `server.requests`: every request received (JSON body and headers), so tests count calls
  and assert on the context the product sent;
- prompt-grounded answers: a queue entry (or the standing `server.answer_with(fn)`) may be a
  function of the request, so the answer is built only from what the request carries. A
  grounded responder that cannot find what it needs in the request answers with what a real
  model would then say (nothing known, nothing met), and the test fails where the product
  withheld context. The domain responders live in `tests/support/grounded_*.py`.

Nothing is monkeypatched: the code under test talks HTTP to this server through httpx.
Aborting a connection needs its transport, so the server runs uvicorn's h11 protocol with a
subclass that remembers each connection's transport by peer address.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from tests.support.polling import until

Fault = Literal["none", "reset", "eof"]


@dataclass
class ScriptedReply:
    """One scripted answer. Build with the helpers below rather than by hand."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None  # raw body instead of a completion (errors, garbage)
    delay: float = 0.0  # seconds before the response starts
    # the response waits until the test sets this (after `delay`): a test that must act while
    # a request is in flight holds the answer instead of guessing how long it takes
    hold: threading.Event | None = None
    chunk_delay: float = 0.0  # seconds between streamed chunks
    chunk_size: int = 4  # characters of text per streamed chunk
    fault: Fault = "none"
    fault_after_chunks: int = 1  # chunks (or body bytes / 2) sent before the fault
    usage: tuple[int, int] | None = (11, 7)  # None: the server omits `usage`
    # what the answer stands on: given only when the request's messages carry every one of
    # these texts; otherwise the server refuses it (422 "ungrounded"), as a model could not
    # have said it — a test fails when the product withholds that context
    grounded_in: tuple[str, ...] = ()


def text(content: str, **kw: Any) -> ScriptedReply:
    return ScriptedReply(text=content, **kw)


def tool_call(
    name: str, arguments: dict[str, Any], call_id: str = "call_1", **kw: Any
) -> ScriptedReply:
    return ScriptedReply(
        tool_calls=[{"id": call_id, "name": name, "arguments": json.dumps(arguments)}], **kw
    )


def status(
    code: int, message: str = "scripted failure", retry_after: str | None = None, **kw: Any
) -> ScriptedReply:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    body = json.dumps({"error": {"message": message, "type": "scripted", "code": code}})
    return ScriptedReply(status=code, headers=headers, body=body, **kw)


def reset_mid_stream(content: str, after_chunks: int = 2, **kw: Any) -> ScriptedReply:
    return ScriptedReply(text=content, fault="reset", fault_after_chunks=after_chunks, **kw)


def eof_mid_stream(content: str, after_chunks: int = 2, **kw: Any) -> ScriptedReply:
    return ScriptedReply(text=content, fault="eof", fault_after_chunks=after_chunks, **kw)


def slow(content: str, delay: float, **kw: Any) -> ScriptedReply:
    return ScriptedReply(text=content, delay=delay, **kw)


@dataclass
class LoggedRequest:
    body: dict[str, Any]
    headers: dict[str, str]
    at: float

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def system(self) -> str:
        return "\n".join(
            str(m.get("content") or "") for m in self.messages if m.get("role") == "system"
        )

    @property
    def user_text(self) -> str:
        """The last user message's text (what the product asked this turn)."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content") or "") if users else ""

    def user_json(self) -> Any:
        """The last user message parsed as JSON (None when it is not JSON)."""
        try:
            return json.loads(self.user_text)
        except (json.JSONDecodeError, TypeError):
            return None


Responder = Callable[[LoggedRequest], "ScriptedReply"]


def _chunks(reply: ScriptedReply, model: str) -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "model": model}
    out: list[dict[str, Any]] = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}
    ]
    size = max(1, reply.chunk_size)
    for i in range(0, len(reply.text), size):
        out.append(
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": reply.text[i : i + size]},
                        "finish_reason": None,
                    }
                ],
            }
        )
    for index, call in enumerate(reply.tool_calls):
        args = call["arguments"]
        half = len(args) // 2
        out.append(
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": None,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": index,
                                    "id": call["id"],
                                    "type": "function",
                                    "function": {"name": call["name"], "arguments": args[:half]},
                                }
                            ]
                        },
                    }
                ],
            }
        )
        out.append(
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": None,
                        "delta": {
                            "tool_calls": [{"index": index, "function": {"arguments": args[half:]}}]
                        },
                    }
                ],
            }
        )
    finish = "tool_calls" if reply.tool_calls else "stop"
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if reply.usage is not None:
        out.append({**base, "choices": [], "usage": _usage(reply.usage)})
    return out


def _usage(usage: tuple[int, int]) -> dict[str, int]:
    return {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}


def _completion(reply: ScriptedReply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in reply.tool_calls
        ]
    body: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
    }
    if reply.usage is not None:
        body["usage"] = _usage(reply.usage)
    return body


class _ScriptedResponse(Response):
    """Writes the scripted reply at the ASGI level so faults can cut the connection."""

    def __init__(self, server: ScriptedModelServer, reply: ScriptedReply, body: dict[str, Any]):
        super().__init__()
        self._server = server
        self._reply = reply
        self._body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        reply, model = self._reply, str(self._body.get("model") or "scripted")
        if reply.delay and await self._server.wait_or_disconnect(reply.delay, receive):
            return
        while reply.hold is not None and not reply.hold.is_set():
            if await self._server.wait_or_disconnect(0.05, receive):
                return
        if reply.body is not None or reply.status != 200:
            payload = (reply.body or "").encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ]
            headers += [(k.lower().encode(), v.encode()) for k, v in reply.headers.items()]
            await send({"type": "http.response.start", "status": reply.status, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
            return
        if self._body.get("stream"):
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream"),
                        (b"cache-control", b"no-cache"),
                    ],
                }
            )
            for i, chunk in enumerate(_chunks(reply, model)):
                if reply.fault != "none" and i >= reply.fault_after_chunks:
                    await self._server.cut(scope, reply.fault)
                    return
                data = f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()
                await send({"type": "http.response.body", "body": data, "more_body": True})
                if reply.chunk_delay and await self._server.wait_or_disconnect(
                    reply.chunk_delay, receive
                ):
                    return
            await send({"type": "http.response.body", "body": b"data: [DONE]\n\n"})
            return
        payload = json.dumps(_completion(reply, model), ensure_ascii=False).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        if reply.fault != "none":
            await send(
                {
                    "type": "http.response.body",
                    "body": payload[: len(payload) // 2],
                    "more_body": True,
                }
            )
            await self._server.cut(scope, reply.fault)
            return
        await send({"type": "http.response.body", "body": payload})


class ScriptedModelServer:
    """Start with `start()` (or as a context manager); `base_url` ends in /v1."""

    def __init__(self, *, certfile: Path | None = None, keyfile: Path | None = None) -> None:
        self.replies: deque[ScriptedReply | Responder] = deque()
        self.responder: Responder | None = None
        self.requests: list[LoggedRequest] = []
        self.ungrounded: list[list[str]] = []  # what refused answers missed, in order
        self._transports: dict[tuple[str, int], asyncio.Transport] = {}
        self._certfile, self._keyfile = certfile, keyfile
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )

    @property
    def base_url(self) -> str:
        scheme = "https" if self._certfile else "http"
        return f"{scheme}://127.0.0.1:{self.port}/v1"

    def script(self, *replies: ScriptedReply | Responder) -> None:
        """Queue answers, one per request; a callable builds its answer from the request."""
        self.replies.extend(replies)

    def answer_with(self, responder: Responder | None) -> None:
        """Answer every request the queue does not cover with `responder(request)`."""
        self.responder = responder

    def reset(self) -> None:
        self.replies.clear()
        self.requests.clear()
        self.ungrounded.clear()
        self.responder = None

    @property
    def calls(self) -> int:
        return len(self.requests)

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def _chat(self, request: Request) -> Response:
        body = json.loads(await request.body())
        logged = LoggedRequest(body=body, headers=dict(request.headers), at=time.monotonic())
        self.requests.append(logged)
        entry: ScriptedReply | Responder | None
        entry = self.replies.popleft() if self.replies else self.responder
        if entry is None:
            return JSONResponse({"error": {"message": "script exhausted"}}, status_code=418)
        reply = entry if isinstance(entry, ScriptedReply) else entry(logged)
        carried = "\n".join(str(m.get("content") or "") for m in logged.messages)
        carried += json.dumps(logged.messages, ensure_ascii=False)
        missing = [t for t in reply.grounded_in if t not in carried]
        if missing:
            self.ungrounded.append(missing)
            message = f"ungrounded: the request does not carry {missing}"
            return JSONResponse({"error": {"message": message}}, status_code=422)
        return _ScriptedResponse(self, reply, body)

    async def wait_or_disconnect(self, seconds: float, receive: Receive) -> bool:
        """Sleep, but give up as soon as the client goes away (keeps shutdown quick)."""
        try:
            async with asyncio.timeout(seconds):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return True
        except TimeoutError:
            return False

    async def cut(self, scope: Scope, fault: Fault) -> None:
        """Let sent bytes reach the client, then reset (RST) or close without a goodbye."""
        await asyncio.sleep(0.05)
        client = scope.get("client")
        transport = self._transports.get(tuple(client)) if client else None  # type: ignore[arg-type]
        if transport is None:
            raise RuntimeError(f"no transport for {client}")
        if fault == "reset":
            sock = transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
        await asyncio.sleep(0.01)

    def _protocol_class(self) -> type[H11Protocol]:
        transports = self._transports

        class Tracking(H11Protocol):
            def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
                super().connection_made(transport)
                if self.client:
                    transports[self.client] = transport

        return Tracking

    def start(self) -> ScriptedModelServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            http=self._protocol_class(),
            lifespan="off",
            log_level="critical",
            ssl_certfile=str(self._certfile) if self._certfile else None,
            ssl_keyfile=str(self._keyfile) if self._keyfile else None,
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="scripted-model", daemon=True
        )
        self._thread.start()
        server, thread = self._server, self._thread

        def up() -> bool:
            if not thread.is_alive():
                raise RuntimeError("scripted model server stopped while starting")
            return bool(server.started)

        until(up, what="the scripted model server started", timeout=10, every=0.01)
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A throw-away certificate for 127.0.0.1, made with the openssl CLI."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key
