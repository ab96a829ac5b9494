"""The chat-completions vocabulary: messages, tools, requests and one request's result.

These mirror the OpenAI chat-completions wire format closely enough that vLLM, llama.cpp
server, Ollama and OpenAI all accept `ChatRequest.to_wire()`; nothing here does I/O.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.llm.accounting import CallStats

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """A function call the model asked for; `arguments` is the raw JSON string it produced."""

    id: str
    name: str
    arguments: str = ""

    def parsed_arguments(self) -> dict[str, Any]:
        if not self.arguments.strip():
            return {}
        value = json.loads(self.arguments)
        if not isinstance(value, dict):
            raise ValueError(f"tool arguments are not an object: {self.arguments!r}")
        return value

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


class ChatMessage(BaseModel):
    role: Role
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @classmethod
    def system(cls, text: str) -> ChatMessage:
        return cls(role="system", content=text)

    @classmethod
    def user(cls, text: str) -> ChatMessage:
        return cls(role="user", content=text)

    @classmethod
    def tool_result(cls, call: ToolCall, content: str) -> ChatMessage:
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            wire["tool_calls"] = [c.to_wire() for c in self.tool_calls]
        if self.tool_call_id is not None:
            wire["tool_call_id"] = self.tool_call_id
        if self.name is not None and self.role == "tool":
            wire["name"] = self.name
        return wire


class ToolSpec(BaseModel):
    """A function the model may call; `parameters` is a JSON schema object."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class ChatRequest(BaseModel):
    messages: list[ChatMessage]
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: str | dict[str, Any] | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    response_format: dict[str, Any] | None = None
    stream: bool = False
    # Ask the server for a usage chunk at the end of a stream (OpenAI, vLLM, llama.cpp).
    stream_usage: bool = True

    def to_wire(self, model: str) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "model": model,
            "messages": [m.to_wire() for m in self.messages],
            "stream": self.stream,
        }
        if self.tools:
            wire["tools"] = [t.to_wire() for t in self.tools]
        if self.tool_choice is not None:
            wire["tool_choice"] = self.tool_choice
        if self.temperature is not None:
            wire["temperature"] = self.temperature
        if self.max_tokens is not None:
            wire["max_tokens"] = self.max_tokens
        if self.response_format is not None:
            wire["response_format"] = self.response_format
        if self.stream and self.stream_usage:
            wire["stream_options"] = {"include_usage": True}
        return wire


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Completion(BaseModel):
    """What one successful attempt produced (before accounting is attached)."""

    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    model: str = ""


class ChatResult(Completion):
    """One model request's answer plus the accounting of every attempt it took."""

    stats: CallStats

    def assistant_message(self) -> ChatMessage:
        return ChatMessage(
            role="assistant", content=self.text or None, tool_calls=list(self.tool_calls)
        )


def completion_from_body(body: dict[str, Any]) -> Completion:
    """Parse a non-streamed chat-completions response body."""
    choices = body.get("choices") or []
    if not choices:
        raise ValueError("response has no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    calls = [
        ToolCall(
            id=str(c.get("id") or f"call_{i}"),
            name=str((c.get("function") or {}).get("name") or ""),
            arguments=str((c.get("function") or {}).get("arguments") or ""),
        )
        for i, c in enumerate(message.get("tool_calls") or [])
    ]
    usage = body.get("usage") or {}
    return Completion(
        text=message.get("content") or "",
        tool_calls=calls,
        finish_reason=choice.get("finish_reason"),
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        ),
        model=str(body.get("model") or ""),
    )
