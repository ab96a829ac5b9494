"""The real client against the scripted OpenAI-compatible server: each fault class over
real sockets, counted in the server's request log."""

from __future__ import annotations

import json
import threading

import httpx
import pytest

from engine.concern.loop_output import LoopOutput, LoopStep
from engine.llm.errors import (
    ModelAuthError,
    ModelCertificateError,
    ModelDeadlineExceeded,
    ModelOutputInvalid,
    ModelRateLimited,
    ModelRequestRejected,
    ModelUnavailable,
)
from engine.llm.messages import ChatMessage, ChatRequest
from engine.llm.tasks import LogEntry, LoopContext, Person
from engine.settings import Settings
from jobs.llm.client import OpenAIChatClient
from jobs.llm.gateway import HttpModelGateway, build_gateway
from tests.support import scripted_model as s
from tests.support.model import FakeClock, WaitRecorder
from tests.support.scripted_model import ScriptedModelServer


def client(
    server: ScriptedModelServer,
    http: httpx.AsyncClient,
    waits: WaitRecorder,
    deadline: float = 180.0,
) -> OpenAIChatClient:
    return OpenAIChatClient(
        http,
        base_url=server.base_url,
        model="scripted-model",
        api_key="sk-test",
        deadline_seconds=deadline,
        sleep=waits,
    )


def ask(stream: bool = False) -> ChatRequest:
    return ChatRequest(messages=[ChatMessage.user("提测什么时候能给？")], stream=stream)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "sse"])
async def test_text_and_tool_calls_round_trip(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder, stream: bool
) -> None:
    model_server.script(s.text("好的，明天给你"), s.tool_call("lookup", {"id": 7}))
    c = client(model_server, http, waits)
    first = await c.chat(ask(stream))
    second = await c.chat(ask(stream))
    assert first.text == "好的，明天给你"
    assert (first.stats.prompt_tokens, first.stats.completion_tokens) == (11, 7)
    assert [(t.name, t.parsed_arguments()) for t in second.tool_calls] == [("lookup", {"id": 7})]
    logged = model_server.requests[0]
    assert logged.headers["authorization"] == "Bearer sk-test"
    assert logged.body["model"] == "scripted-model" and logged.stream is stream
    assert model_server.calls == 2 and waits.waits == []


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_each_transient_status_is_retried_after_one_second(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder, status: int
) -> None:
    model_server.script(s.status(status), s.text("recovered"))
    result = await client(model_server, http, waits).chat(ask())
    assert result.text == "recovered"
    assert model_server.calls == 2 and waits.waits == [1.0]
    assert result.stats.retries == 1


async def test_retries_run_out_after_three_attempts_with_the_last_error(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    model_server.script(
        s.status(503, "one"), s.status(502, "two"), s.status(500, "three"), s.text("never sent")
    )
    with pytest.raises(ModelUnavailable) as caught:
        await client(model_server, http, waits).chat(ask(stream=True))
    assert model_server.calls == 3 and waits.waits == [1.0, 3.0]
    assert caught.value.attempts == 3 and "three" in caught.value.last_error


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (401, ModelAuthError),
        (403, ModelAuthError),
        (400, ModelRequestRejected),
        (422, ModelRequestRejected),
    ],
)
async def test_auth_and_parameter_errors_are_sent_once(
    model_server: ScriptedModelServer,
    http: httpx.AsyncClient,
    waits: WaitRecorder,
    status: int,
    error: type,
) -> None:
    model_server.script(s.status(status), s.text("never"))
    with pytest.raises(error):
        await client(model_server, http, waits).chat(ask())
    assert model_server.calls == 1 and waits.waits == []


async def test_429_is_a_deferral_with_retry_after(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    model_server.script(s.status(429, retry_after="30"), s.text("never"))
    with pytest.raises(ModelRateLimited) as caught:
        await client(model_server, http, waits).chat(ask())
    assert caught.value.retry_after == 30.0
    assert model_server.calls == 1 and waits.waits == []


class Observer:
    def __init__(self) -> None:
        self.deltas: dict[int, str] = {}
        self.discarded: list[int] = []

    def delta(self, attempt: int, text: str) -> None:
        self.deltas[attempt] = self.deltas.get(attempt, "") + text

    def discard(self, attempt: int) -> None:
        self.discarded.append(attempt)


@pytest.mark.parametrize(
    "fault", [s.reset_mid_stream, s.eof_mid_stream], ids=["connection-reset", "abrupt-close"]
)
async def test_stream_cut_half_way_is_retried_and_leaves_nothing_behind(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder, fault
) -> None:
    model_server.script(fault("半截的回答不应该出现", after_chunks=3), s.text("完整回答"))
    observer = Observer()
    result = await client(model_server, http, waits).chat(ask(stream=True), observer=observer)
    assert result.text == "完整回答"
    assert observer.deltas[1] and observer.discarded == [1]  # attempt 1 did stream, then void
    assert model_server.calls == 2 and waits.waits == [1.0]


async def test_tool_call_cut_mid_stream_is_not_returned(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    cut = s.ScriptedReply(
        tool_calls=[{"id": "c1", "name": "publish", "arguments": '{"x": 1}'}],
        fault="reset",
        fault_after_chunks=2,
    )
    model_server.script(cut, s.text("no tools needed"))
    result = await client(model_server, http, waits).chat(ask(stream=True))
    assert result.tool_calls == [] and result.text == "no tools needed"


async def test_non_streamed_body_cut_by_reset_is_retried(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    model_server.script(s.reset_mid_stream("x"), s.text("whole"))
    assert (await client(model_server, http, waits).chat(ask())).text == "whole"
    assert model_server.calls == 2


async def test_tls_eof_mid_stream_is_retried(
    tls_server: ScriptedModelServer, trusting_http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    tls_server.script(s.eof_mid_stream("被截断的", after_chunks=2), s.text("over TLS"))
    result = await client(tls_server, trusting_http, waits).chat(ask(stream=True))
    assert result.text == "over TLS"
    assert tls_server.calls == 2 and waits.waits == [1.0]


async def test_untrusted_certificate_is_not_retried(
    tls_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    tls_server.script(s.text("never"))
    with pytest.raises(ModelCertificateError) as caught:
        await client(tls_server, http, waits).chat(ask())
    assert caught.value.attempts == 1 and waits.waits == []
    assert tls_server.calls == 0  # the handshake failed before any request


async def test_slow_reply_past_the_deadline_is_cut_once(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    never = threading.Event()  # the answer is held past any deadline: only the cut ends it
    model_server.script(s.text("too late", hold=never), s.text("never"))
    try:
        with pytest.raises(ModelDeadlineExceeded):  # not "too late": cut at the deadline
            await client(model_server, http, waits, deadline=0.5).chat(ask(stream=True))
    finally:
        never.set()
    assert model_server.calls == 1 and waits.waits == []


async def test_deadline_spans_retries_over_http(
    model_server: ScriptedModelServer, http: httpx.AsyncClient
) -> None:
    """A controlled clock that the backoff waits move: attempt 1 fails at 0 s and the 1 s
    wait fits the 1.6 s deadline; attempt 2 fails at 1 s and the 3 s wait would pass it, so
    there is no third attempt."""
    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    model_server.script(s.status(503), s.status(503), s.text("late"))
    c = OpenAIChatClient(
        http,
        base_url=model_server.base_url,
        model="m",
        deadline_seconds=1.6,
        clock=clock,
        sleep=sleep,
    )
    with pytest.raises(ModelDeadlineExceeded) as caught:
        await c.chat(ask())
    assert caught.value.attempts == 2 and model_server.calls == 2


async def test_tool_loop_over_http_never_reruns_an_executed_tool(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    model_server.script(
        s.tool_call("record_evidence", {"step": "s1"}, call_id="call_9"),
        s.status(503),
        s.eof_mid_stream("partial"),
        s.text("recorded"),
    )
    gateway = HttpModelGateway(client(model_server, http, waits))
    executed: list[dict[str, object]] = []

    async def record(args: dict[str, object]) -> str:
        executed.append(args)
        return json.dumps({"ok": True})

    result = await gateway.run_tools(ask(stream=True), {"record_evidence": record})
    assert executed == [{"step": "s1"}]
    assert result.final.text == "recorded"
    assert model_server.calls == 4 and waits.waits == [1.0, 3.0]
    for logged in model_server.requests[1:]:
        assert logged.messages[-1]["role"] == "tool"
        assert logged.messages[-1]["tool_call_id"] == "call_9"


async def test_gateway_parses_the_agent_loop_output(
    model_server: ScriptedModelServer, http: httpx.AsyncClient, waits: WaitRecorder
) -> None:
    answer = {
        "goal_met": True,
        "step": "resolve",
        "summary": "张三：明天提测",
        "owner_update": "",
        "attitude": "committed",
    }
    model_server.script(
        s.text("```json\n" + json.dumps(answer, ensure_ascii=False) + "\n```"),
        s.text('{"goal_met": "maybe"}'),
    )
    settings = Settings(model_base_url=model_server.base_url, model_name="qwen")
    gateway = build_gateway(settings, http=http, sleep=waits)
    ctx = LoopContext(
        goal="拿到张三的具体提测时间点",
        initiator=Person(person_id="p0"),
        counterparts=[Person(person_id="p1", display_name="张三")],
        conversation_log=[
            LogEntry(
                person_id="p1", direction="inbound", text="好的，明天给你", ts="2026-03-17T10:05"
            )
        ],
        now="2026-03-17T11:00",
    )
    judged = await gateway.judge_loop(ctx)
    assert isinstance(judged.value, LoopOutput) and judged.value.step is LoopStep.RESOLVE
    sent = model_server.requests[0].body
    assert sent["response_format"]["type"] == "json_schema"
    assert "好的，明天给你" in sent["messages"][1]["content"]
    with pytest.raises(ModelOutputInvalid) as caught:
        await gateway.judge_loop(ctx)
    assert caught.value.raw_text == '{"goal_met": "maybe"}'
