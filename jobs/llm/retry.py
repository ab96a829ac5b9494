"""The retry policy of one model request, exactly as docs/rules/watches.md states it.

    单轮模型请求遇到临时 500/502/503/504、连接重置、TLS EOF 或 HTTP/2 协议中断，分别退避
    1 秒和 3 秒，最多补试两次。所有尝试共享原有 180 秒时限，不重置超时。
    认证、参数、证书和取消错误不短间隔重试，429 交给现有调度策略处理。

So: at most three attempts, waits of exactly 1 s then 3 s, one deadline fixed when the
request starts. A retry is skipped when its wait would end at or past the deadline. Anything
not in the transient list (timeouts, connection refused, other statuses) is reported as it
was after one attempt. 429 is never retried here — the caller turns it into a deferral.

The retry boundary is one model request: `run_with_retry` re-invokes only the attempt
function it is given, which sends one HTTP request and returns a parsed completion. Tools
run outside it (engine/llm/tools.py).

Clock and sleep are injected so tests check the exact waits without sleeping.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Protocol, TypeVar

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, wait_chain, wait_fixed

from engine.clock import utcnow

T = TypeVar("T")

TRANSIENT_STATUSES: frozenset[int] = frozenset({500, 502, 503, 504})
RULE_WAITS: tuple[float, ...] = (
    1.0,
    3.0,
)  # docs/rules/watches.md: 分别退避 1 秒和 3 秒，最多补试两次


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def now(self) -> datetime: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def now(self) -> datetime:
        return utcnow()


Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    waits: tuple[float, ...] = RULE_WAITS
    transient_statuses: frozenset[int] = TRANSIENT_STATUSES

    @property
    def max_attempts(self) -> int:
        return len(self.waits) + 1


RULE_POLICY = RetryPolicy()


class Deadline:
    """One deadline for every attempt of a request; created once, never reset."""

    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds
        self.started_at = clock.monotonic()
        self.expires_at = self.started_at + seconds

    def remaining(self) -> float:
        return self.expires_at - self.clock.monotonic()

    def elapsed(self) -> float:
        return self.clock.monotonic() - self.started_at


class FailureKind(StrEnum):
    TRANSIENT = "transient"
    RATE_LIMITED = "rate_limited"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    CERTIFICATE = "certificate"
    TIMEOUT = "timeout"
    DEADLINE = "deadline"
    CANCELLED = "cancelled"
    INVALID_RESPONSE = "invalid_response"
    OTHER = "other"


class HttpStatusFailure(Exception):
    """A non-2xx answer; raised inside an attempt and classified by status."""

    def __init__(self, status: int, body: str, retry_after: str | None = None) -> None:
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body
        self.retry_after = retry_after


class StreamInterrupted(Exception):
    """A stream ended before `[DONE]` or a finish_reason: the protocol was interrupted."""


class InvalidResponse(Exception):
    """A 2xx answer that is not a chat completion (bad JSON, no choices)."""


class AttemptDeadline(Exception):
    """The attempt was cut by the shared deadline."""


class AttemptTimeout(Exception):
    """The attempt was cut by the per-request timeout (shorter than the deadline)."""


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _is_certificate_error(chain: list[BaseException]) -> bool:
    return any(
        isinstance(e, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(e)
        for e in chain
    )


def _is_tls_eof(chain: list[BaseException]) -> bool:
    return any(
        isinstance(e, ssl.SSLEOFError)
        or "EOF occurred in violation of protocol" in str(e)
        or "UNEXPECTED_EOF_WHILE_READING" in str(e)
        for e in chain
    )


def _is_connection_reset(chain: list[BaseException]) -> bool:
    return any(
        isinstance(e, ConnectionResetError | BrokenPipeError) or "Connection reset" in str(e)
        for e in chain
    )


def classify(exc: BaseException, policy: RetryPolicy = RULE_POLICY) -> FailureKind:
    """Which kind of failure one attempt's is (what docs/rules/watches.md retries, defers or
    reports)."""
    if isinstance(exc, asyncio.CancelledError):
        return FailureKind.CANCELLED
    if isinstance(exc, HttpStatusFailure):
        if exc.status in policy.transient_statuses:
            return FailureKind.TRANSIENT
        if exc.status == 429:
            return FailureKind.RATE_LIMITED
        if exc.status in (401, 403):
            return FailureKind.AUTH
        if exc.status in (400, 422):
            return FailureKind.BAD_REQUEST
        return FailureKind.OTHER
    if isinstance(exc, AttemptDeadline):
        return FailureKind.DEADLINE
    if isinstance(exc, AttemptTimeout | httpx.TimeoutException):
        return FailureKind.TIMEOUT
    if isinstance(exc, InvalidResponse):
        return FailureKind.INVALID_RESPONSE
    chain = _chain(exc)
    # Certificate problems first: they also surface as ConnectError, and must never retry.
    if _is_certificate_error(chain):
        return FailureKind.CERTIFICATE
    if isinstance(exc, StreamInterrupted | httpx.RemoteProtocolError):
        return FailureKind.TRANSIENT  # HTTP/2 (or HTTP/1.1) protocol interruption
    if _is_tls_eof(chain) or _is_connection_reset(chain):
        return FailureKind.TRANSIENT
    return FailureKind.OTHER


@dataclass
class RetryLog:
    """What the retry loop did, for CallStats: the waits it slept and why it stopped."""

    waits: list[float] = field(default_factory=list)
    stopped_by_deadline: bool = False


def _stop(policy: RetryPolicy, deadline: Deadline, log: RetryLog) -> Callable[..., bool]:
    def stop(state: RetryCallState) -> bool:
        if state.attempt_number >= policy.max_attempts:
            return True
        wait = state.upcoming_sleep
        if deadline.remaining() <= wait:
            log.stopped_by_deadline = True
            return True
        return False

    return stop


async def run_with_retry(
    attempt: Callable[[int], Awaitable[T]],
    *,
    deadline: Deadline,
    sleep: Sleep,
    policy: RetryPolicy = RULE_POLICY,
    log: RetryLog | None = None,
) -> T:
    """Call `attempt(n)` until it succeeds, fails non-transiently, or the policy stops.

    The final exception propagates unchanged; the client maps it to a typed ModelError.
    """
    record = log if log is not None else RetryLog()

    async def before_sleep(state: RetryCallState) -> None:
        if state.next_action is not None:
            record.waits.append(state.next_action.sleep)

    retrying = AsyncRetrying(
        stop=_stop(policy, deadline, record),
        wait=wait_chain(*(wait_fixed(w) for w in policy.waits)),
        retry=retry_if_exception(lambda e: classify(e, policy) is FailureKind.TRANSIENT),
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )
    number = 0

    async def counted() -> T:
        nonlocal number
        number += 1
        return await attempt(number)

    return await retrying(counted)


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Retry-After as seconds from `now`: delta-seconds or an HTTP-date (RFC 9110 §10.2.3)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())
