"""Streams, tool loops, structured output and accounting around one model request."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from pydantic import BaseModel

from engine.concern.loop_output import LoopOutput
from engine.llm.accounting import Accounting
from engine.llm.errors import (
    ModelAuthError,
    ModelOutputInvalid,
    ModelUnavailable,
    ToolLoopInterrupted,
)
from engine.llm.messages import ChatMessage, ChatRequest
from engine.llm.structured import (
    StructuredMode,
    extract_json_text,
    parse_result,
    parse_structured,
    structured_request,
)
from engine.llm.tools import run_tool_loop
from tests.support.model import (
    FakeClock,
    RecordingSleep,
    Script,
    completion,
    error,
    finish_chunk,
    make_client,
    reset,
    sse,
    text_chunk,
    tool_chunk,
)


class Observer:
    def __init__(self) -> None:
        self.deltas: list[tuple[int, str]] = []
        self.discarded: list[int] = []

    def delta(self, attempt: int, text: str) -> None:
        self.deltas.append((attempt, text))

    def discard(self, attempt: int) -> None:
        self.discarded.append(attempt)


STREAM = ChatRequest(messages=[ChatMessage.user("hi")], stream=True)


async def test_stream_broken_half_way_leaves_no_partial_text_or_tool_call() -> None:
    clock = FakeClock()
    sleep = RecordingSleep(clock)
    broken = sse(
        [text_chunk("Hal"), tool_chunk(0, '{"q": "par', "call_x", "search")], then_raise=reset()
    )
    whole = sse([text_chunk("Hello "), text_chunk("world"), finish_chunk()])
    script = Script(clock, broken, whole)
    client, http = make_client(script, clock, sleep)
    observer = Observer()
    async with http:
        result = await client.chat(STREAM, observer=observer)
    assert result.text == "Hello world"
    assert result.tool_calls == []
    assert observer.discarded == [1]
    assert [d for d in observer.deltas if d[0] == 2] == [(2, "Hello "), (2, "world")]
    assert sleep.waits == [1.0]


async def test_stream_assembles_tool_calls_from_fragments() -> None:
    clock = FakeClock()
    chunks = [
        tool_chunk(0, '{"city": ', "call_1", "weather"),
        tool_chunk(0, '"Hangzhou"}'),
        tool_chunk(1, "{}", "call_2", "time"),
        finish_chunk("tool_calls"),
        {"model": "m", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}},
    ]
    client, http = make_client(Script(clock, sse(chunks)), clock, RecordingSleep(clock))
    async with http:
        result = await client.chat(STREAM)
    assert [(c.id, c.name, c.parsed_arguments()) for c in result.tool_calls] == [
        ("call_1", "weather", {"city": "Hangzhou"}),
        ("call_2", "time", {}),
    ]
    assert (result.stats.prompt_tokens, result.stats.completion_tokens) == (9, 4)


async def test_stream_ending_without_done_or_finish_is_an_interruption_and_retried() -> None:
    clock = FakeClock()
    sleep = RecordingSleep(clock)
    cut = sse([text_chunk("partial")], done=False)
    script = Script(clock, cut, sse([text_chunk("full"), finish_chunk()]))
    client, http = make_client(script, clock, sleep)
    async with http:
        result = await client.chat(STREAM)
    assert result.text == "full"
    assert result.stats.attempts[0].outcome == "transient"
    assert "StreamInterrupted" in (result.stats.attempts[0].error or "")


async def test_request_carries_model_auth_and_stream_usage() -> None:
    clock = FakeClock()
    script = Script(clock, sse([text_chunk("x"), finish_chunk()]))
    client, http = make_client(script, clock, RecordingSleep(clock))
    async with http:
        await client.chat(STREAM)
    request = script.requests[0]
    assert str(request.url) == "http://model.test/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer k"
    body = json.loads(request.content)
    assert body["model"] == "m" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


WEATHER_CALL = [{"id": "call_1", "name": "weather", "arguments": {"city": "Hangzhou"}}]


async def test_tool_executed_before_a_failure_is_not_executed_again() -> None:
    clock = FakeClock()
    sleep = RecordingSleep(clock)
    script = Script(
        clock,
        completion("", tool_calls=WEATHER_CALL),
        error(503),
        error(502),
        completion("It is sunny."),
    )
    client, http = make_client(script, clock, sleep)
    runs: list[dict[str, object]] = []

    async def weather(args: dict[str, object]) -> str:
        runs.append(args)
        return "sunny"

    async with http:
        result = await run_tool_loop(
            client.chat, ChatRequest(messages=[ChatMessage.user("?")]), {"weather": weather}
        )
    assert runs == [{"city": "Hangzhou"}]
    assert result.final.text == "It is sunny."
    assert len(script.requests) == 4
    for body in script.bodies()[1:]:  # every retry re-sent the kept tool result
        assert body["messages"][-1] == {
            "role": "tool",
            "content": "sunny",
            "tool_call_id": "call_1",
            "name": "weather",
        }
    assert result.retries == 2
    assert sleep.waits == [1.0, 3.0]


async def test_interrupted_tool_loop_keeps_results_and_resuming_does_not_rerun_tools() -> None:
    clock = FakeClock()
    script = Script(
        clock,
        completion("", tool_calls=WEATHER_CALL),
        error(503),
        error(503),
        error(503),
        completion("done"),
    )
    client, http = make_client(script, clock, RecordingSleep(clock))
    runs: list[str] = []

    async def weather(args: dict[str, object]) -> str:
        runs.append("ran")
        return "sunny"

    request = ChatRequest(messages=[ChatMessage.user("?")])
    async with http:
        with pytest.raises(ToolLoopInterrupted) as caught:
            await run_tool_loop(client.chat, request, {"weather": weather})
        interrupted = caught.value
        assert isinstance(interrupted.cause, ModelUnavailable)
        assert interrupted.messages[-1].role == "tool"
        assert interrupted.messages[-1].content == "sunny"
        resumed = await run_tool_loop(
            client.chat,
            request.model_copy(update={"messages": interrupted.messages}),
            {"weather": weather},
        )
    assert runs == ["ran"]
    assert resumed.final.text == "done"


class Verdict(BaseModel):
    goal_met: bool
    reason: str


async def test_invalid_structured_output_is_a_typed_error_keeping_the_raw_text() -> None:
    clock = FakeClock()
    raw = '{"goal_met": "perhaps", "note": 1}'
    client, http = make_client(Script(clock, completion(raw)), clock, RecordingSleep(clock))
    async with http:
        result = await client.chat(
            structured_request(
                ChatRequest(messages=[ChatMessage.user("judge")]),
                Verdict,
                StructuredMode.JSON_SCHEMA,
            )
        )
    with pytest.raises(ModelOutputInvalid) as caught:
        parse_result(result, Verdict)
    assert caught.value.raw_text == raw
    assert any("goal_met" in e for e in caught.value.errors)
    assert any("reason" in e for e in caught.value.errors)
    assert caught.value.stats is not None and caught.value.stats.outcome == "invalid_output"


def test_non_json_answer_is_invalid_with_raw_text() -> None:
    with pytest.raises(ModelOutputInvalid) as caught:
        parse_structured("I think the goal is met.", Verdict)
    assert caught.value.raw_text == "I think the goal is met."


def test_fenced_or_wrapped_json_is_accepted() -> None:
    fenced = 'Sure:\n```json\n{"goal_met": true, "reason": "好"}\n```'
    assert parse_structured(fenced, Verdict) == Verdict(goal_met=True, reason="好")
    assert extract_json_text('answer: {"a": 1} end') == '{"a": 1}'
    out = parse_structured('{"goal_met": false, "step": "follow_up"}', LoopOutput)
    assert out.step == "follow_up"


def test_structured_request_sets_response_format_per_mode() -> None:
    base = ChatRequest(messages=[ChatMessage.user("x")])
    schema = structured_request(base, Verdict, StructuredMode.JSON_SCHEMA)
    assert schema.response_format is not None
    assert schema.response_format["json_schema"]["name"] == "Verdict"
    assert structured_request(base, Verdict, StructuredMode.JSON_OBJECT).response_format == {
        "type": "json_object"
    }
    prompt = structured_request(base, Verdict, StructuredMode.PROMPT)
    assert prompt.response_format is None
    assert "goal_met" in (prompt.messages[-1].content or "")


async def test_metrics_count_calls_retries_tokens_and_failures() -> None:
    clock = FakeClock()
    accounting = Accounting(2)
    script = Script(clock, error(500), completion("a", usage=(10, 2)), error(401), latency=0.5)
    client, http = make_client(script, clock, RecordingSleep(clock), accounting=accounting)
    async with http:
        await client.chat(ChatRequest(messages=[ChatMessage.user("1")]))
        with pytest.raises(ModelAuthError):
            await client.chat(ChatRequest(messages=[ChatMessage.user("2")]))
    c = accounting.metrics.snapshot()["m"]
    assert (c.calls, c.attempts, c.retries, c.ok) == (2, 3, 1, 1)
    assert c.failures == {"auth": 1}
    assert (c.prompt_tokens, c.completion_tokens) == (10, 2)
    assert c.latency_seconds_sum == pytest.approx(2.5)  # (0.5 + wait 1 + 0.5) + 0.5
    assert c.in_flight == 0


async def test_concurrency_limit_per_model_holds_across_concurrent_calls() -> None:
    clock = FakeClock()
    in_flight = 0
    peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return completion("ok")

    script = Script(clock, *([handler] * 6))
    client, http = make_client(script, clock, RecordingSleep(clock), accounting=Accounting(2))
    async with http:
        await asyncio.gather(
            *(client.chat(ChatRequest(messages=[ChatMessage.user(str(i))])) for i in range(6))
        )
    assert peak == 2
    assert len(script.requests) == 6
