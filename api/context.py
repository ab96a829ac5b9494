"""The per-request GraphQL context: process resources plus who is asking."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from arq.connections import ArqRedis
from neo4j import AsyncDriver
from starlette.requests import Request

from api.auth import Principal
from engine.errors import StorygraphError, Unauthenticated
from engine.settings import Settings
from jobs.deps import Deps

L = TypeVar("L")


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
        return Deps(settings=self.settings, driver=self.driver, pool=self.pool)

    def caller(self) -> Principal:
        """The caller, for a use case to check; UNAUTHENTICATED without a valid token."""
        if self.principal is None:
            raise Unauthenticated("a valid bearer token is required")
        return self.principal

    def require(self, role: str, scope: str | None = None) -> Principal:
        """The caller, refused (FORBIDDEN, naming no scope) without `role` or `scope`."""
        if self.principal is None:
            raise Unauthenticated("a valid bearer token is required")
        self.principal.require(role, scope)
        return self.principal

    def visible(self, role: str, scope: str | None, missing: StorygraphError) -> Principal:
        """The caller, when it may see a stored object of `scope`; else `missing`, the very
        error an unknown id gets (an object of another scope reads as NOT_FOUND)."""
        if self.principal is None:
            raise Unauthenticated("a valid bearer token is required")
        self.principal.visible(role, scope, missing)
        return self.principal
