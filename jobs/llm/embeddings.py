"""OpenAI-compatible embeddings client: `POST {base_url}/embeddings`, the chat model's rules.

One `embed(texts)` is one model request with the chat model's retry policy (jobs/llm/retry.py: waits
of 1 s then 3 s on a transient failure, one deadline), its calls counted and recorded in the
cost ledger like chat calls (`ledger.record`), and its failures the same typed `ModelError`s
(engine/llm/errors.py) — it shares `OpenAIChatClient`'s error mapping and bookkeeping.

A vector of the wrong size is an `InvalidResponse` (not retried): the configured
`EMBEDDING_DIMENSIONS` is what the vector index holds. The vectors come only from the
endpoint; storygraph never makes one up (no endpoint: search is lexical and says so).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Literal, Protocol

import httpx
from pydantic import SecretStr

from engine.llm.accounting import Accounting, AttemptRecord, CallStats
from engine.llm.ledger import estimate_tokens
from engine.settings import Settings
from jobs.llm.client import _ATTEMPT_OUTCOME, OpenAIChatClient, _call_outcome, describe
from jobs.llm.retry import (
    AttemptDeadline,
    AttemptTimeout,
    Clock,
    Deadline,
    HttpStatusFailure,
    InvalidResponse,
    RetryLog,
    Sleep,
    classify,
    run_with_retry,
)

# what the text is to the model: a search's text ("query") or what is stored ("passage")
InputType = Literal["query", "passage"]


@dataclass(frozen=True)
class Embedded:
    vectors: list[list[float]]
    stats: CallStats


class Embedder(Protocol):
    """What hybrid search and the embed jobs need (`Deps.embedder`, the worker's ctx)."""

    model: str
    dimensions: int

    async def embed(
        self,
        texts: list[str],
        *,
        deadline_seconds: float | None = None,
        input_type: InputType = "passage",
    ) -> Embedded: ...


class OpenAIEmbeddingClient(OpenAIChatClient):
    """`embed(texts)`; the chat client's headers, error mapping, metrics and ledger."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        dimensions: int,
        send_input_type: bool = False,
        **kw: object,
    ) -> None:
        super().__init__(http, **kw)  # type: ignore[arg-type]
        self.url = str(kw["base_url"]).rstrip("/") + "/embeddings"
        self.dimensions = dimensions
        self.send_input_type = send_input_type

    async def embed(
        self,
        texts: list[str],
        *,
        deadline_seconds: float | None = None,
        input_type: InputType = "passage",
    ) -> Embedded:
        deadline = Deadline(self.clock, deadline_seconds or self.deadline_seconds)
        stats = CallStats(model=self.model)
        log = RetryLog()
        payload: dict[str, object] = {
            "model": self.model,
            "input": texts,
            "encoding_format": "float",
        }
        if self.send_input_type:  # e5 and the like: `query:` / `passage:` (EMBEDDING_INPUT_TYPE)
            payload["input_type"] = input_type

        async def attempt(number: int) -> tuple[list[list[float]], int]:
            started = self.clock.monotonic()
            try:
                out = await self._post(payload, len(texts), deadline)
            except BaseException as exc:
                kind = classify(exc, self.policy)
                stats.attempts.append(
                    AttemptRecord(
                        number=number,
                        outcome=_ATTEMPT_OUTCOME[kind],  # type: ignore[arg-type]
                        error=describe(exc),
                        status=exc.status if isinstance(exc, HttpStatusFailure) else None,
                        latency_seconds=self.clock.monotonic() - started,
                    )
                )
                raise
            stats.attempts.append(
                AttemptRecord(
                    number=number, outcome="ok", latency_seconds=self.clock.monotonic() - started
                )
            )
            return out

        try:
            vectors, tokens = await run_with_retry(
                attempt, deadline=deadline, sleep=self._sleep, policy=self.policy, log=log
            )
        except asyncio.CancelledError:
            self._finish(stats, log, deadline, "cancelled")
            raise
        except Exception as exc:
            error = self._to_model_error(exc, stats, log)
            self._finish(stats, log, deadline, _call_outcome(error))
            raise error.with_stats(stats) from exc
        stats.prompt_tokens = tokens or estimate_tokens(sum(len(t) for t in texts))
        stats.estimated = not tokens
        self._finish(stats, log, deadline, "ok")
        return Embedded(vectors=vectors, stats=stats)

    async def _post(
        self, payload: dict[str, object], count: int, deadline: Deadline
    ) -> tuple[list[list[float]], int]:
        remaining = deadline.remaining()
        if remaining <= 0:
            raise AttemptDeadline("deadline already passed before the attempt")
        budget = min(self.request_timeout_seconds, remaining)
        try:
            async with asyncio.timeout(budget):
                async with self.accounting.limiter.slot(self.model):
                    response = await self._http.post(
                        self.url, json=payload, headers=self._headers(), timeout=budget
                    )
        except (TimeoutError, httpx.TimeoutException) as exc:
            if budget >= remaining or deadline.remaining() <= 0:
                raise AttemptDeadline(f"shared deadline of {deadline.seconds:g}s reached") from exc
            raise AttemptTimeout(f"request exceeded {budget:g}s") from exc
        if response.status_code >= 400:
            raise HttpStatusFailure(
                response.status_code, response.text, response.headers.get("retry-after")
            )
        return self._vectors(response, count)

    def _vectors(self, response: httpx.Response, count: int) -> tuple[list[list[float]], int]:
        try:
            body = response.json()
            rows = sorted(body["data"], key=lambda r: int(r.get("index", 0)))
            vectors = [[float(x) for x in r["embedding"]] for r in rows]
            tokens = int((body.get("usage") or {}).get("prompt_tokens") or 0)
        except (ValueError, json.JSONDecodeError, TypeError, KeyError, AttributeError) as exc:
            raise InvalidResponse(f"not an embeddings answer: {response.text[:300]!r}") from exc
        if len(vectors) != count:
            raise InvalidResponse(f"asked for {count} vectors, got {len(vectors)}")
        wrong = next((len(v) for v in vectors if len(v) != self.dimensions), None)
        if wrong is not None:
            raise InvalidResponse(
                f"the endpoint returned {wrong}-dimension vectors; EMBEDDING_DIMENSIONS is "
                f"{self.dimensions}"
            )
        return vectors, tokens


def _origin(url: str | None) -> tuple[str, str, int | None] | None:
    if not url:
        return None
    parts = httpx.URL(url)
    return (parts.scheme, parts.host, parts.port)


def embedding_key(settings: Settings) -> SecretStr | None:
    """EMBEDDING_API_KEY; else MODEL_API_KEY only when the embeddings endpoint is on the chat
    model's own origin (scheme, host, port): a key is never sent to a host it was not
    configured for."""
    if settings.embedding_api_key is not None:
        return settings.embedding_api_key
    same = _origin(settings.embedding_base_url) == _origin(settings.model_base_url)
    return settings.model_api_key if same and settings.model_base_url else None


def build_embedder(
    settings: Settings,
    http: httpx.AsyncClient,
    *,
    accounting: Accounting | None = None,
    clock: Clock | None = None,
    sleep: Sleep = asyncio.sleep,
) -> OpenAIEmbeddingClient | None:
    """The embeddings client when EMBEDDING_BASE_URL is set, else None (search is lexical)."""
    if not settings.embedding_base_url or settings.embedding_dimensions is None:
        return None
    secret = embedding_key(settings)
    return OpenAIEmbeddingClient(
        http,
        dimensions=settings.embedding_dimensions,
        send_input_type=settings.embedding_input_type,
        base_url=settings.embedding_base_url,
        model=settings.embedding_model,
        api_key=secret.get_secret_value() if secret else None,
        deadline_seconds=settings.model_deadline_seconds,
        request_timeout_seconds=settings.model_request_timeout_seconds,
        accounting=accounting or Accounting(settings.model_concurrency),
        clock=clock,
        sleep=sleep,
    )
