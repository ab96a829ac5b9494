"""Limits and accounting for model calls (the ledger: docs/reference/cost-ledger.md).

- `CallStats`: what one logical model request cost — every attempt with its outcome, the
  backoff waits, tokens and latency. Jobs store `retries` on the heartbeat run / observation
  that made the call (心跳记录显示退避次数; docs/rules/watches.md) and the raw stats for diagnosis.
- `ModelMetrics`: per-process counters per model (calls, retries, failures by kind, tokens,
  latency) that the API exports as metrics.
- `ConcurrencyLimiter`: a per-process semaphore per model. A slot is held for one attempt
  only — never across a backoff sleep — and waiting for it counts against the deadline.

One `Accounting` (metrics + limiter) exists per process; the lifespan creates it with the
shared `httpx.AsyncClient` and hands both to the gateway factory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field, computed_field

AttemptOutcome = Literal[
    "ok",
    "transient",
    "rate_limited",
    "auth",
    "bad_request",
    "certificate",
    "timeout",
    "deadline",
    "cancelled",
    "invalid_response",
    "other",
]
CallOutcome = Literal[
    "ok",
    "unavailable",
    "rate_limited",
    "auth",
    "bad_request",
    "deadline",
    "timeout",
    "cancelled",
    "invalid_output",
]


class AttemptRecord(BaseModel):
    number: int
    outcome: AttemptOutcome
    error: str | None = None
    status: int | None = None
    latency_seconds: float = 0.0


class CallStats(BaseModel):
    model: str
    outcome: CallOutcome = "ok"
    attempts: list[AttemptRecord] = Field(default_factory=list)
    waits: list[float] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # the server omitted `usage`: tokens are engine.llm.ledger's estimate
    latency_seconds: float = 0.0
    queued_seconds: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def retries(self) -> int:
        """Attempts after the first: the number the run record shows as 退避次数."""
        return max(0, len(self.attempts) - 1)

    @property
    def last_error(self) -> str | None:
        for attempt in reversed(self.attempts):
            if attempt.error:
                return attempt.error
        return None


@dataclass
class ModelCounters:
    calls: int = 0
    attempts: int = 0
    retries: int = 0
    ok: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_seconds_sum: float = 0.0
    latency_seconds_max: float = 0.0
    in_flight: int = 0
    queued: int = 0


class ModelMetrics:
    """Process-wide counters, keyed by model name. Updated once per finished call."""

    def __init__(self) -> None:
        self._by_model: dict[str, ModelCounters] = {}

    def counters(self, model: str) -> ModelCounters:
        return self._by_model.setdefault(model, ModelCounters())

    def record(self, stats: CallStats) -> None:
        c = self.counters(stats.model)
        c.calls += 1
        c.attempts += len(stats.attempts)
        c.retries += stats.retries
        if stats.outcome == "ok":
            c.ok += 1
        else:
            c.failures[stats.outcome] = c.failures.get(stats.outcome, 0) + 1
        c.prompt_tokens += stats.prompt_tokens
        c.completion_tokens += stats.completion_tokens
        c.latency_seconds_sum += stats.latency_seconds
        c.latency_seconds_max = max(c.latency_seconds_max, stats.latency_seconds)

    def snapshot(self) -> dict[str, ModelCounters]:
        """A copy for exporters; later calls do not change it."""
        return {
            name: ModelCounters(
                calls=c.calls,
                attempts=c.attempts,
                retries=c.retries,
                ok=c.ok,
                failures=dict(c.failures),
                prompt_tokens=c.prompt_tokens,
                completion_tokens=c.completion_tokens,
                latency_seconds_sum=c.latency_seconds_sum,
                latency_seconds_max=c.latency_seconds_max,
                in_flight=c.in_flight,
                queued=c.queued,
            )
            for name, c in self._by_model.items()
        }


class ConcurrencyLimiter:
    """At most `limit` requests in flight per model in this process."""

    def __init__(self, limit: int, metrics: ModelMetrics) -> None:
        if limit < 1:
            raise ValueError("model concurrency must be at least 1")
        self.limit = limit
        self._metrics = metrics
        self._semaphores: dict[str, asyncio.Semaphore] = {}

    def _semaphore(self, model: str) -> asyncio.Semaphore:
        return self._semaphores.setdefault(model, asyncio.Semaphore(self.limit))

    @asynccontextmanager
    async def slot(self, model: str) -> AsyncIterator[None]:
        counters = self._metrics.counters(model)
        sem = self._semaphore(model)
        counters.queued += 1
        try:
            await sem.acquire()
        finally:
            counters.queued -= 1
        counters.in_flight += 1
        try:
            yield
        finally:
            counters.in_flight -= 1
            sem.release()


class Accounting:
    """The per-process pair the gateway factory receives: metrics and the limiter."""

    def __init__(self, concurrency: int = 4) -> None:
        self.metrics = ModelMetrics()
        self.limiter = ConcurrencyLimiter(concurrency, self.metrics)
