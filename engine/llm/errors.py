"""Typed outcomes of a model call that a caller can act on.

docs/rules/watches.md: transient failures are retried inside the gateway; everything else is
reported "as it was" — with the last error and the number of attempts — so the job that made
the call can record it on its run. 429 is not an error to sleep on: it becomes
`ModelRateLimited` carrying Retry-After so the arq job defers itself.

Every error carries the `CallStats` of the call (attempts, retries, waits, tokens) once the
client has them, so retry counts reach the run record even when the call failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.errors import ErrorCode, StorygraphError

if TYPE_CHECKING:
    from engine.llm.accounting import CallStats


class ModelError(StorygraphError):
    """Base of every model-call failure."""

    code = ErrorCode.UNAVAILABLE

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message, **details)
        self.stats: CallStats | None = None

    def with_stats(self, stats: CallStats) -> ModelError:
        self.stats = stats
        return self


class ModelUnavailable(ModelError):
    """The upstream could not answer: retries exhausted, or a failure that is not
    retried (docs/rules/watches.md#model-connection-errors).

    `last_error` is the error of the final attempt, verbatim (重试耗尽仍如实报告失败;
    docs/rules/watches.md).
    """

    code = ErrorCode.UNAVAILABLE

    def __init__(self, message: str, *, last_error: str, attempts: int, **details: Any) -> None:
        super().__init__(message, last_error=last_error, attempts=attempts, **details)
        self.last_error = last_error
        self.attempts = attempts


class ModelDeadlineExceeded(ModelUnavailable):
    """The shared deadline of all attempts ran out (所有尝试共享原有 180 秒时限;
    docs/rules/watches.md)."""


class ModelTimeout(ModelUnavailable):
    """One request exceeded the per-request timeout; a timeout is not retried
    (docs/rules/watches.md#model-connection-errors)."""


class ModelCertificateError(ModelUnavailable):
    """TLS certificate verification failed; never retried (证书错误不短间隔重试;
    docs/rules/watches.md)."""


class ModelAuthError(ModelError):
    """401/403 from the endpoint; never retried."""

    code = ErrorCode.UNAUTHENTICATED

    def __init__(self, message: str, *, status: int, body: str = "") -> None:
        super().__init__(message, status=status, body=body)
        self.status = status
        self.body = body
        if status == 403:
            self.code = ErrorCode.FORBIDDEN


class ModelRequestRejected(ModelError):
    """400/422 (bad parameters) or another non-retried 4xx; never retried."""

    code = ErrorCode.INVALID_INPUT

    def __init__(self, message: str, *, status: int, body: str = "") -> None:
        super().__init__(message, status=status, body=body)
        self.status = status
        self.body = body


class ModelRateLimited(ModelError):
    """429: the caller defers (arq `Retry(defer=retry_after)`); the gateway never sleeps on it.

    `retry_after` is seconds from now, parsed from Retry-After (delta-seconds or HTTP-date);
    None when the endpoint sent none — the job then uses its own schedule.
    """

    code = ErrorCode.RATE_LIMITED

    def __init__(self, message: str, *, retry_after: float | None, body: str = "") -> None:
        super().__init__(message, retry_after=retry_after, body=body)
        self.retry_after = retry_after
        self.body = body


class ModelOutputInvalid(ModelError):
    """The answer did not validate against the requested pydantic model.

    `raw_text` is the model's answer exactly as received, to be kept on the run record.
    """

    code = ErrorCode.INTERNAL

    def __init__(self, message: str, *, raw_text: str, errors: list[str]) -> None:
        super().__init__(message, raw_text=raw_text, errors=errors)
        self.raw_text = raw_text
        self.errors = errors


class ToolLoopInterrupted(ModelError):
    """A model request inside a tool loop failed after some tools already ran.

    `messages` holds the transcript including every executed tool's result, so a later
    attempt resumes from it and never re-runs those tools (docs/rules/watches.md:
    已执行工具的结果保留； 工具执行不在重试边界内). `cause` is the model error that ended the loop.
    """

    def __init__(self, cause: ModelError, *, messages: list[Any], tool_runs: list[Any]) -> None:
        super().__init__(f"tool loop interrupted: {cause.message}", cause=type(cause).__name__)
        self.cause = cause
        self.messages = messages
        self.tool_runs = tool_runs
        self.code = cause.code
        self.stats = cause.stats
