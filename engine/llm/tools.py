"""A tool-running loop on top of single model requests.

The retry boundary is one model request (工具执行不在重试边界内; docs/rules/watches.md). This loop
calls `chat` once per model turn, executes the tool calls of a *successful* turn, appends their
results, and asks again. A retry inside `chat` therefore re-sends the transcript with the tool
results already in it — it never re-runs a tool — and a turn that fails for good raises
`ToolLoopInterrupted` carrying the transcript so far (results of executed tools kept), from which a
later job resumes: tools whose call id already has a result are not run again.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from engine.llm.accounting import CallStats
from engine.llm.errors import ModelError, ToolLoopInterrupted
from engine.llm.messages import ChatMessage, ChatRequest, ChatResult, ToolCall

ToolFn = Callable[[dict[str, Any]], Awaitable[str]]
ChatFn = Callable[[ChatRequest], Awaitable[ChatResult]]


class ToolRun(BaseModel):
    call_id: str
    name: str
    arguments: str
    result: str
    error: bool = False


class ToolLoopResult(BaseModel):
    final: ChatResult
    messages: list[ChatMessage]
    tool_runs: list[ToolRun] = Field(default_factory=list)
    calls: list[CallStats] = Field(default_factory=list)

    @property
    def retries(self) -> int:
        return sum(c.retries for c in self.calls)


def answered_call_ids(messages: list[ChatMessage]) -> set[str]:
    return {m.tool_call_id for m in messages if m.role == "tool" and m.tool_call_id}


async def _run_tool(call: ToolCall, tools: Mapping[str, ToolFn]) -> ToolRun:
    fn = tools.get(call.name)
    if fn is None:
        return ToolRun(
            call_id=call.id,
            name=call.name,
            arguments=call.arguments,
            result=json.dumps({"error": f"unknown tool {call.name}"}),
            error=True,
        )
    try:
        args = call.parsed_arguments()
    except ValueError as exc:
        return ToolRun(
            call_id=call.id,
            name=call.name,
            arguments=call.arguments,
            result=json.dumps({"error": f"bad arguments: {exc}"}),
            error=True,
        )
    return ToolRun(call_id=call.id, name=call.name, arguments=call.arguments, result=await fn(args))


async def run_tool_loop(
    chat: ChatFn,
    request: ChatRequest,
    tools: Mapping[str, ToolFn],
    *,
    max_turns: int = 8,
) -> ToolLoopResult:
    """Alternate model turns and tool executions until the model answers without tools."""
    messages = list(request.messages)
    runs: list[ToolRun] = []
    calls: list[CallStats] = []

    async def execute_pending() -> None:
        # Resuming: an assistant turn in the transcript whose calls have no result yet.
        done = answered_call_ids(messages)
        last = messages[-1] if messages else None
        if last is not None and last.role == "assistant":
            for call in last.tool_calls:
                if call.id not in done:
                    run = await _run_tool(call, tools)
                    runs.append(run)
                    messages.append(ChatMessage.tool_result(call, run.result))

    await execute_pending()
    for _ in range(max_turns):
        try:
            result = await chat(request.model_copy(update={"messages": list(messages)}))
        except ModelError as exc:
            raise ToolLoopInterrupted(exc, messages=list(messages), tool_runs=list(runs)) from exc
        calls.append(result.stats)
        messages.append(result.assistant_message())
        if not result.tool_calls:
            return ToolLoopResult(final=result, messages=messages, tool_runs=runs, calls=calls)
        await execute_pending()
    raise ToolLoopInterrupted(
        ModelError(f"model kept calling tools after {max_turns} turns"),
        messages=list(messages),
        tool_runs=list(runs),
    )
