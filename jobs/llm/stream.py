"""Server-sent events of a streamed chat completion, assembled into one `Completion`.

An accumulator lives for exactly one attempt. When the attempt fails the accumulator is
dropped with everything it collected, so no partial text or half-built tool call of a failed
attempt reaches the caller (失败流中的部分文本和工具调用丢弃; docs/rules/watches.md). A
`StreamObserver` sees deltas as they arrive and is told when an attempt's deltas are void.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.llm.messages import Completion, ToolCall, Usage
from jobs.llm.retry import InvalidResponse, StreamInterrupted

DONE = "[DONE]"


class StreamObserver(Protocol):
    """Progress sink for streamed text (e.g. a run-progress subscription)."""

    def delta(self, attempt: int, text: str) -> None: ...

    def discard(self, attempt: int) -> None:
        """Everything `delta` reported for `attempt` is void: that attempt failed."""


async def iter_sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """Yield the `data` payload of each SSE event (multi-line data joined by newlines)."""
    data: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue  # comment / keep-alive
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
    if data:
        yield "\n".join(data)


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class StreamAccumulator:
    """Folds `chat.completion.chunk` objects into one completion."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, _PartialCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    done: bool = False

    def feed(self, chunk: dict[str, Any]) -> str:
        """Absorb one chunk; return its text delta (possibly empty)."""
        self.model = str(chunk.get("model") or self.model)
        if chunk.get("usage"):
            u = chunk["usage"]
            self.usage = Usage(
                prompt_tokens=int(u.get("prompt_tokens") or 0),
                completion_tokens=int(u.get("completion_tokens") or 0),
            )
        text = ""
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            piece = delta.get("content")
            if piece:
                self.text.append(piece)
                text += piece
            for i, call in enumerate(delta.get("tool_calls") or []):
                index = int(call.get("index", i))
                partial = self.calls.setdefault(index, _PartialCall())
                if call.get("id"):
                    partial.id = str(call["id"])
                fn = call.get("function") or {}
                if fn.get("name"):
                    partial.name += str(fn["name"])
                if fn.get("arguments"):
                    partial.arguments.append(str(fn["arguments"]))
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        return text

    def finish(self) -> Completion:
        """The completed answer; a stream cut before its end is an interruption."""
        if not self.done and self.finish_reason is None:
            raise StreamInterrupted("stream ended before [DONE] or a finish_reason")
        calls = [
            ToolCall(id=p.id or f"call_{i}", name=p.name, arguments="".join(p.arguments))
            for i, p in sorted(self.calls.items())
        ]
        return Completion(
            text="".join(self.text),
            tool_calls=calls,
            finish_reason=self.finish_reason,
            usage=self.usage,
            model=self.model,
        )


async def read_stream(
    lines: AsyncIterator[str], attempt: int, observer: StreamObserver | None
) -> Completion:
    """Consume one attempt's SSE body. Raises StreamInterrupted if it ends early."""
    acc = StreamAccumulator()
    async for data in iter_sse_data(lines):
        if data.strip() == DONE:
            acc.done = True
            break
        try:
            chunk = json.loads(data)
        except json.JSONDecodeError as exc:
            raise InvalidResponse(f"stream chunk is not JSON: {data[:200]!r}") from exc
        if isinstance(chunk, dict) and "error" in chunk and not chunk.get("choices"):
            # Some servers report a mid-stream failure as an error event, then close.
            raise StreamInterrupted(f"error event in stream: {json.dumps(chunk['error'])[:300]}")
        piece = acc.feed(chunk)
        if piece and observer is not None:
            observer.delta(attempt, piece)
    return acc.finish()
