"""OpenAI-compatible chat-completions client: one model request, with its retries
(docs/rules/watches.md#model-connection-errors).

`OpenAIChatClient.chat(request)` is one *model request*: it may take up to three HTTP
attempts (jobs/llm/retry.py) under one deadline, and returns one `ChatResult` with the
`CallStats` of all attempts — or raises a typed `ModelError` carrying those stats.

The `httpx.AsyncClient` is shared per process and owned by the caller (the lifespan or the
arq `on_startup`); this class never opens or closes it. Works with any endpoint speaking
`POST {base_url}/chat/completions` (OpenAI, vLLM, llama.cpp server, Ollama's /v1).
"""

from __future__ import annotations

import asyncio
import json

import httpx

from engine.llm.accounting import Accounting, AttemptRecord, CallOutcome, CallStats
from engine.llm.errors import (
    ModelAuthError,
    ModelCertificateError,
    ModelDeadlineExceeded,
    ModelError,
    ModelRateLimited,
    ModelRequestRejected,
    ModelTimeout,
    ModelUnavailable,
)
from engine.llm.ledger import estimate_tokens
from engine.llm.messages import ChatRequest, ChatResult, Completion, completion_from_body
from jobs.llm import ledger
from jobs.llm.retry import (
    RULE_POLICY,
    AttemptDeadline,
    AttemptTimeout,
    Clock,
    Deadline,
    FailureKind,
    HttpStatusFailure,
    InvalidResponse,
    RetryLog,
    RetryPolicy,
    Sleep,
    SystemClock,
    classify,
    parse_retry_after,
    run_with_retry,
)
from jobs.llm.stream import StreamObserver, read_stream

_ATTEMPT_OUTCOME = {
    FailureKind.TRANSIENT: "transient",
    FailureKind.RATE_LIMITED: "rate_limited",
    FailureKind.AUTH: "auth",
    FailureKind.BAD_REQUEST: "bad_request",
    FailureKind.CERTIFICATE: "certificate",
    FailureKind.TIMEOUT: "timeout",
    FailureKind.DEADLINE: "deadline",
    FailureKind.CANCELLED: "cancelled",
    FailureKind.INVALID_RESPONSE: "invalid_response",
    FailureKind.OTHER: "other",
}


def describe(exc: BaseException) -> str:
    """The error as it was: type and message, plus the innermost cause that says more."""
    text = f"{type(exc).__name__}: {exc}".rstrip(": ")
    seen: set[int] = {id(exc)}
    current = exc.__cause__ or exc.__context__
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if str(current) and str(current) not in text:
            text += f" (caused by {type(current).__name__}: {current})"
        elif not str(current) and type(current).__name__ not in text:
            text += f" (caused by {type(current).__name__})"
        current = current.__cause__ or current.__context__
    return text


class OpenAIChatClient:
    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        deadline_seconds: float = 180.0,
        request_timeout_seconds: float = 60.0,
        accounting: Accounting | None = None,
        policy: RetryPolicy = RULE_POLICY,
        clock: Clock | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._http = http
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key
        self.deadline_seconds = deadline_seconds
        self.request_timeout_seconds = request_timeout_seconds
        self.accounting = accounting or Accounting()
        self.policy = policy
        self.clock: Clock = clock or SystemClock()
        self._sleep = sleep

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream, application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    async def chat(
        self,
        request: ChatRequest,
        *,
        observer: StreamObserver | None = None,
        deadline: Deadline | None = None,
    ) -> ChatResult:
        """One model request. Pass `deadline` to share one across several requests."""
        deadline = deadline or Deadline(self.clock, self.deadline_seconds)
        stats = CallStats(model=self.model)
        log = RetryLog()
        payload = request.to_wire(self.model)

        async def attempt(number: int) -> Completion:
            started = self.clock.monotonic()
            try:
                completion = await self._attempt(
                    payload, request.stream, number, deadline, observer
                )
            except BaseException as exc:
                kind = classify(exc, self.policy)
                status = exc.status if isinstance(exc, HttpStatusFailure) else None
                stats.attempts.append(
                    AttemptRecord(
                        number=number,
                        outcome=_ATTEMPT_OUTCOME[kind],  # type: ignore[arg-type]
                        error=describe(exc),
                        status=status,
                        latency_seconds=self.clock.monotonic() - started,
                    )
                )
                if observer is not None and request.stream:
                    observer.discard(number)
                raise
            stats.attempts.append(
                AttemptRecord(
                    number=number,
                    outcome="ok",
                    latency_seconds=self.clock.monotonic() - started,
                )
            )
            return completion

        try:
            completion = await run_with_retry(
                attempt, deadline=deadline, sleep=self._sleep, policy=self.policy, log=log
            )
        except asyncio.CancelledError:
            self._finish(stats, log, deadline, "cancelled")
            raise
        except Exception as exc:
            error = self._to_model_error(exc, stats, log)
            self._finish(stats, log, deadline, _call_outcome(error))
            raise error.with_stats(stats) from exc
        stats.prompt_tokens = completion.usage.prompt_tokens
        stats.completion_tokens = completion.usage.completion_tokens
        if not (stats.prompt_tokens or stats.completion_tokens):  # the server omitted usage
            said = completion.text + json.dumps(
                [c.to_wire() for c in completion.tool_calls], ensure_ascii=False
            )
            sent = json.dumps(payload.get("messages"), ensure_ascii=False)
            stats.prompt_tokens = estimate_tokens(len(sent))
            stats.completion_tokens = estimate_tokens(len(said) - 2)  # without "[]"
            stats.estimated = True
        self._finish(stats, log, deadline, "ok")
        return ChatResult(**completion.model_dump(), stats=stats)

    def _finish(
        self, stats: CallStats, log: RetryLog, deadline: Deadline, outcome: CallOutcome
    ) -> None:
        stats.waits = list(log.waits)
        stats.outcome = outcome
        stats.latency_seconds = deadline.elapsed()
        self.accounting.metrics.record(stats)
        ledger.record(stats)

    async def _attempt(
        self,
        payload: dict[str, object],
        stream: bool,
        number: int,
        deadline: Deadline,
        observer: StreamObserver | None,
    ) -> Completion:
        remaining = deadline.remaining()
        if remaining <= 0:
            raise AttemptDeadline("deadline already passed before the attempt")
        budget = min(self.request_timeout_seconds, remaining)
        cut_by_deadline = budget >= remaining
        timeout = httpx.Timeout(budget)
        try:
            async with asyncio.timeout(budget):
                async with self.accounting.limiter.slot(self.model):
                    if stream:
                        return await self._streamed(payload, timeout, number, observer)
                    return await self._plain(payload, timeout)
        except (TimeoutError, httpx.TimeoutException) as exc:
            if cut_by_deadline or deadline.remaining() <= 0:
                raise AttemptDeadline(f"shared deadline of {deadline.seconds:g}s reached") from exc
            raise AttemptTimeout(f"request exceeded {budget:g}s") from exc

    async def _plain(self, payload: dict[str, object], http_timeout: httpx.Timeout) -> Completion:
        response = await self._http.post(
            self.url, json=payload, headers=self._headers(), timeout=http_timeout
        )
        if response.status_code >= 400:
            raise HttpStatusFailure(
                response.status_code, response.text, response.headers.get("retry-after")
            )
        try:
            return completion_from_body(response.json())
        except (ValueError, json.JSONDecodeError, TypeError, AttributeError) as exc:
            raise InvalidResponse(f"not a chat completion: {response.text[:300]!r}") from exc

    async def _streamed(
        self,
        payload: dict[str, object],
        http_timeout: httpx.Timeout,
        number: int,
        observer: StreamObserver | None,
    ) -> Completion:
        async with self._http.stream(
            "POST", self.url, json=payload, headers=self._headers(), timeout=http_timeout
        ) as response:
            if response.status_code >= 400:
                body = (await response.aread()).decode("utf-8", "replace")
                raise HttpStatusFailure(
                    response.status_code, body, response.headers.get("retry-after")
                )
            content_type = response.headers.get("content-type", "")
            if "text/event-stream" not in content_type:
                # A server that ignored stream=true answered with one JSON body.
                body = (await response.aread()).decode("utf-8", "replace")
                try:
                    return completion_from_body(json.loads(body))
                except (ValueError, TypeError, AttributeError) as exc:
                    raise InvalidResponse(f"not a chat completion: {body[:300]!r}") from exc
            return await read_stream(response.aiter_lines(), number, observer)

    def _to_model_error(self, exc: Exception, stats: CallStats, log: RetryLog) -> ModelError:
        attempts = len(stats.attempts)
        kind = classify(exc, self.policy)
        last = describe(exc)
        if isinstance(exc, HttpStatusFailure):
            if kind is FailureKind.RATE_LIMITED:
                return ModelRateLimited(
                    "model endpoint rate-limited the request (429)",
                    retry_after=parse_retry_after(exc.retry_after, self.clock.now()),
                    body=exc.body,
                )
            if kind is FailureKind.AUTH:
                return ModelAuthError(
                    f"model endpoint refused credentials ({exc.status})",
                    status=exc.status,
                    body=exc.body,
                )
            if kind is FailureKind.BAD_REQUEST or (400 <= exc.status < 500):
                return ModelRequestRejected(
                    f"model endpoint rejected the request ({exc.status})",
                    status=exc.status,
                    body=exc.body,
                )
        if kind is FailureKind.CERTIFICATE:
            return ModelCertificateError(
                "TLS certificate verification failed", last_error=last, attempts=attempts
            )
        if kind is FailureKind.DEADLINE or log.stopped_by_deadline:
            return ModelDeadlineExceeded(
                f"model request ran out of its {self.deadline_seconds:g}s deadline "
                f"after {attempts} attempt(s)",
                last_error=last,
                attempts=attempts,
            )
        if kind is FailureKind.TIMEOUT:
            return ModelTimeout(
                f"model request timed out after {attempts} attempt(s)",
                last_error=last,
                attempts=attempts,
            )
        if kind is FailureKind.TRANSIENT:
            return ModelUnavailable(
                f"model endpoint still failing after {attempts} attempt(s)",
                last_error=last,
                attempts=attempts,
            )
        return ModelUnavailable(f"model request failed: {last}", last_error=last, attempts=attempts)


def _call_outcome(error: ModelError) -> CallOutcome:
    if isinstance(error, ModelRateLimited):
        return "rate_limited"
    if isinstance(error, ModelAuthError):
        return "auth"
    if isinstance(error, ModelRequestRejected):
        return "bad_request"
    if isinstance(error, ModelDeadlineExceeded):
        return "deadline"
    if isinstance(error, ModelTimeout):
        return "timeout"
    return "unavailable"
