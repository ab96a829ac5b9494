"""The per-request GraphQL context: process resources plus who is asking."""

from __future__ import annotations

from dataclasses import dataclass

from arq.connections import ArqRedis
from neo4j import AsyncDriver
from starlette.requests import Request

from api.auth import Principal
from engine.errors import Unauthenticated
from engine.settings import Settings


@dataclass
class Context:
    request: Request
    settings: Settings
    driver: AsyncDriver
    pool: ArqRedis
    principal: Principal | None

    @property
    def database(self) -> str:
        return self.settings.neo4j_database

    def require(self, role: str, scope: str | None = None) -> Principal:
        if self.principal is None:
            raise Unauthenticated("a valid bearer token is required")
        self.principal.require(role, scope)
        return self.principal
