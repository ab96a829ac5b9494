"""docs/rules/watches.md: which failures retry, with exactly which waits, under one deadline."""

from __future__ import annotations

import asyncio
import ssl
from datetime import timedelta
from email.utils import format_datetime

import httpx
import pytest

from engine.llm.errors import (
    ModelAuthError,
    ModelCertificateError,
    ModelDeadlineExceeded,
    ModelRateLimited,
    ModelRequestRejected,
    ModelTimeout,
    ModelUnavailable,
)
from engine.llm.messages import ChatMessage, ChatRequest
from jobs.llm.retry import FailureKind, classify, parse_retry_after
from tests.support.model import (
    FakeClock,
    RecordingSleep,
    Script,
    completion,
    error,
    make_client,
    reset,
)

REQUEST = ChatRequest(messages=[ChatMessage.user("hi")])


def tls_eof() -> httpx.ConnectError:
    try:
        raise ssl.SSLEOFError(8, "EOF occurred in violation of protocol (_ssl.c:2406)")
    except ssl.SSLEOFError as exc:
        try:
            raise httpx.ConnectError("EOF occurred in violation of protocol") from exc
        except httpx.ConnectError as wrapped:
            return wrapped


def certificate_error() -> httpx.ConnectError:
    try:
        raise ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] self-signed")
    except ssl.SSLCertVerificationError as exc:
        try:
            raise httpx.ConnectError(str(exc)) from exc
        except httpx.ConnectError as wrapped:
            return wrapped


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sleep(clock: FakeClock) -> RecordingSleep:
    return RecordingSleep(clock)


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_transient_status_backs_off_one_then_three_seconds(
    status: int, clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, error(status), error(status), completion("fine"))
    client, http = make_client(script, clock, sleep)
    async with http:
        result = await client.chat(REQUEST)
    assert result.text == "fine"
    assert sleep.waits == [1.0, 3.0]
    assert len(script.requests) == 3
    assert result.stats.retries == 2
    assert result.stats.waits == [1.0, 3.0]
    assert [a.outcome for a in result.stats.attempts] == ["transient", "transient", "ok"]


@pytest.mark.parametrize(
    "fault",
    [
        reset,
        tls_eof,
        lambda: httpx.RemoteProtocolError(
            "<StreamReset stream_id:1, error_code:ErrorCodes.PROTOCOL_ERROR>"
        ),
    ],
    ids=["connection-reset", "tls-eof", "http2-protocol-interruption"],
)
async def test_transport_interruptions_are_retried_once_per_failure(
    fault, clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, fault(), completion("recovered"))
    client, http = make_client(script, clock, sleep)
    async with http:
        result = await client.chat(REQUEST)
    assert result.text == "recovered"
    assert sleep.waits == [1.0]
    assert len(script.requests) == 2
    assert result.stats.retries == 1


async def test_exhausted_retries_report_the_last_error_as_it_was(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, error(502, "first"), error(503, "second"), error(504, "third"))
    client, http = make_client(script, clock, sleep)
    async with http:
        with pytest.raises(ModelUnavailable) as caught:
            await client.chat(REQUEST)
    err = caught.value
    assert len(script.requests) == 3  # one try plus exactly two retries
    assert sleep.waits == [1.0, 3.0]
    assert err.attempts == 3
    assert "504" in err.last_error and "third" in err.last_error
    assert err.stats is not None and err.stats.retries == 2
    assert err.stats.outcome == "unavailable"


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (401, ModelAuthError),
        (403, ModelAuthError),
        (400, ModelRequestRejected),
        (422, ModelRequestRejected),
        (404, ModelRequestRejected),
    ],
)
async def test_auth_and_parameter_errors_are_not_retried(
    status: int, error_type: type, clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, error(status), completion("never"))
    client, http = make_client(script, clock, sleep)
    async with http:
        with pytest.raises(error_type) as caught:
            await client.chat(REQUEST)
    assert len(script.requests) == 1
    assert sleep.waits == []
    assert caught.value.stats is not None and caught.value.stats.retries == 0


async def test_certificate_error_is_not_retried(clock: FakeClock, sleep: RecordingSleep) -> None:
    script = Script(clock, certificate_error(), completion("never"))
    client, http = make_client(script, clock, sleep)
    async with http:
        with pytest.raises(ModelCertificateError):
            await client.chat(REQUEST)
    assert len(script.requests) == 1
    assert sleep.waits == []


async def test_connection_refused_is_reported_after_one_attempt(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, httpx.ConnectError("[Errno 111] Connection refused"))
    client, http = make_client(script, clock, sleep)
    async with http:
        with pytest.raises(ModelUnavailable) as caught:
            await client.chat(REQUEST)
    assert caught.value.attempts == 1
    assert "Connection refused" in caught.value.last_error
    assert sleep.waits == []


async def test_cancellation_during_a_request_is_not_retried(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    started = asyncio.Event()

    async def hang(request: httpx.Request) -> httpx.Response:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    script = Script(clock, hang, completion("never"))
    client, http = make_client(script, clock, sleep)
    async with http:
        task = asyncio.create_task(client.chat(REQUEST))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert len(script.requests) == 1
    assert sleep.waits == []
    assert client.accounting.metrics.counters("m").failures == {"cancelled": 1}


async def test_cancellation_during_backoff_stops_without_another_attempt(clock: FakeClock) -> None:
    async def cancelled_sleep(seconds: float) -> None:
        raise asyncio.CancelledError

    script = Script(clock, error(503), completion("never"))
    client, http = make_client(script, clock, RecordingSleep(clock))
    client._sleep = cancelled_sleep
    async with http:
        with pytest.raises(asyncio.CancelledError):
            await client.chat(REQUEST)
    assert len(script.requests) == 1


async def test_429_becomes_a_deferral_carrying_retry_after_without_sleeping(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, error(429, headers={"Retry-After": "30"}), completion("never"))
    client, http = make_client(script, clock, sleep)
    async with http:
        with pytest.raises(ModelRateLimited) as caught:
            await client.chat(REQUEST)
    assert caught.value.retry_after == 30.0
    assert len(script.requests) == 1
    assert sleep.waits == []
    assert caught.value.stats is not None and caught.value.stats.outcome == "rate_limited"


async def test_429_after_a_transient_failure_still_defers(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    when = format_datetime(clock.now() + timedelta(seconds=1 + 90), usegmt=True)
    script = Script(clock, error(503), error(429, headers={"Retry-After": when}))
    client, http = make_client(script, clock, sleep)
    async with http:
        with pytest.raises(ModelRateLimited) as caught:
            await client.chat(REQUEST)
    assert sleep.waits == [1.0]
    assert caught.value.retry_after == pytest.approx(90.0, abs=1.0)
    assert caught.value.stats is not None and caught.value.stats.retries == 1


async def test_shared_deadline_stops_a_retry_whose_wait_would_pass_it(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    # Each attempt takes 1.5 s. t=1.5 fail, wait 1 -> t=2.5, t=4.0 fail; 1 s left < 3 s wait.
    script = Script(clock, error(503), error(503), completion("too late"), latency=1.5)
    client, http = make_client(script, clock, sleep, deadline=5.0)
    async with http:
        with pytest.raises(ModelDeadlineExceeded) as caught:
            await client.chat(REQUEST)
    assert sleep.waits == [1.0]
    assert len(script.requests) == 2
    assert caught.value.attempts == 2
    assert "503" in caught.value.last_error


async def test_deadline_is_never_reset_each_attempt_gets_only_what_is_left(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, error(500), error(500), completion("ok"), latency=2.0)
    client, http = make_client(script, clock, sleep, deadline=20.0, request_timeout=60.0)
    async with http:
        await client.chat(REQUEST)
    budgets = [r.extensions["timeout"]["read"] for r in script.requests]
    # t=0 budget 20; attempt ends t=2, wait 1 -> 17 left; ends t=5, wait 3 -> 12 left.
    assert budgets == [20.0, 17.0, 12.0]


async def test_per_request_timeout_sits_inside_the_deadline(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    script = Script(clock, error(500), completion("ok"), latency=1.0)
    client, http = make_client(script, clock, sleep, deadline=180.0, request_timeout=60.0)
    async with http:
        await client.chat(REQUEST)
    assert [r.extensions["timeout"]["read"] for r in script.requests] == [60.0, 60.0]


async def test_a_request_running_past_the_deadline_is_cut_and_not_retried(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return completion("late")

    script = Script(clock, slow, completion("never"))
    client, http = make_client(script, clock, sleep, deadline=0.2, request_timeout=60.0)
    async with http:
        with pytest.raises(ModelDeadlineExceeded) as caught:
            await client.chat(REQUEST)
    assert len(script.requests) == 1
    assert sleep.waits == []
    assert caught.value.stats is not None and caught.value.stats.outcome == "deadline"


async def test_per_request_timeout_is_reported_not_retried(
    clock: FakeClock, sleep: RecordingSleep
) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return completion("late")

    script = Script(clock, slow, completion("never"))
    client, http = make_client(script, clock, sleep, deadline=100.0, request_timeout=0.1)
    async with http:
        with pytest.raises(ModelTimeout):
            await client.chat(REQUEST)
    assert len(script.requests) == 1


def test_classification_of_each_seed_category() -> None:
    from jobs.llm.retry import HttpStatusFailure

    assert classify(HttpStatusFailure(503, "")) is FailureKind.TRANSIENT
    assert classify(HttpStatusFailure(501, "")) is FailureKind.OTHER
    assert classify(HttpStatusFailure(429, "")) is FailureKind.RATE_LIMITED
    assert classify(reset()) is FailureKind.TRANSIENT
    assert classify(tls_eof()) is FailureKind.TRANSIENT
    assert classify(certificate_error()) is FailureKind.CERTIFICATE
    assert classify(asyncio.CancelledError()) is FailureKind.CANCELLED
    assert classify(httpx.ReadTimeout("t")) is FailureKind.TIMEOUT


def test_retry_after_parses_seconds_and_http_dates(clock: FakeClock) -> None:
    now = clock.now()
    assert parse_retry_after("12", now) == 12.0
    assert parse_retry_after(
        format_datetime(now + timedelta(seconds=45), usegmt=True), now
    ) == pytest.approx(45.0, abs=1.0)
    assert parse_retry_after(None, now) is None
    assert parse_retry_after("soon", now) is None
