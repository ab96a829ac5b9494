"""The per-request GraphQL context: process resources plus who is asking."""

from __future__ import annotations

from collections import Counter
from collections import Counter as CounterType
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from arq.connections import ArqRedis
from neo4j import AsyncDriver
from starlette.requests import Request

from engine.errors import ErrorCode, StorygraphError, Unauthenticated
from engine.principal import Principal
from engine.settings import Settings
from jobs.deps import Deps
from jobs.llm.embeddings import Embedder

L = TypeVar("L")
SUBSCRIPTIONS_KEY = "storygraph.subscriptions"  # in the websocket's ASGI scope
# subscriptions running over HTTP streams in this process, by token name
HTTP_STREAMS: CounterType[str] = Counter()


class TooManySubscriptions(StorygraphError):
    code = ErrorCode.RATE_LIMITED


@dataclass
class Context:
    request: Request
    settings: Settings
    driver: AsyncDriver
    pool: ArqRedis
    principal: Principal | None
    # Per-request DataLoaders (and other request-scoped caches), created on first use.
    loaders: dict[str, Any] = field(default_factory=dict)
    # A websocket's `connection_init` payload (graphql-transport-ws); may carry the token.
    connection_params: dict[str, Any] = field(default_factory=dict)
    # hybrid search's embeddings client (the lifespan's); None: search is lexical
    embedder: Embedder | None = None

    @property
    def database(self) -> str:
        return self.settings.neo4j_database

    def loader(self, key: str, factory: Callable[[], L]) -> L:
        """The request's loader under `key`, made by `factory` the first time it is asked for."""
        if key not in self.loaders:
            self.loaders[key] = factory()
        loader: L = self.loaders[key]
        return loader

    @property
    def deps(self) -> Deps:
        """What the use cases are given besides the caller: driver, pool, settings, clock."""
        return Deps(
            settings=self.settings, driver=self.driver, pool=self.pool, embedder=self.embedder
        )

    @contextmanager
    def subscription_slot(self) -> Iterator[None]:
        """Hold one of the websocket's `ws_max_subscriptions` subscription slots while a
        subscription runs (queries and mutations count only toward `ws_max_operations`).
        A subscription over an HTTP stream (Server-Sent Events, multipart) has a request of
        its own, so there the slots are the token's: at most `ws_max_subscriptions` streams
        of one token at once in this process."""
        scope = self.request.scope
        if scope.get("type") == "http":
            with self._stream_slot():
                yield
            return
        held = scope.get(SUBSCRIPTIONS_KEY, 0)
        limit = self.settings.ws_max_subscriptions
        if held >= limit:
            raise TooManySubscriptions(
                f"this websocket already runs {held} subscriptions; at most {limit} are allowed",
                limit=limit,
            )
        scope[SUBSCRIPTIONS_KEY] = held + 1
        try:
            yield
        finally:
            scope[SUBSCRIPTIONS_KEY] = scope.get(SUBSCRIPTIONS_KEY, 1) - 1

    @contextmanager
    def _stream_slot(self) -> Iterator[None]:
        holder = self.principal.name if self.principal is not None else ""
        held = HTTP_STREAMS[holder]
        limit = self.settings.ws_max_subscriptions
        if held >= limit:
            raise TooManySubscriptions(
                f"this token already runs {held} subscriptions over HTTP streams; at most "
                f"{limit} are allowed",
                limit=limit,
            )
        HTTP_STREAMS[holder] = held + 1
        try:
            yield
        finally:
            HTTP_STREAMS[holder] -= 1
            if HTTP_STREAMS[holder] <= 0:
                del HTTP_STREAMS[holder]

    def caller(self) -> Principal:
        """The caller, for a use case to check; UNAUTHENTICATED without a valid token."""
        if self.principal is None:
            raise Unauthenticated("a valid bearer token is required")
        return self.principal
