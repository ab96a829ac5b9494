"""Plumbing shared by the review repositories: named queries run inside managed
transactions, one session per call, the deployment every global record is keyed by.

The deployment is the arq queue name: workers and API replicas of one deployment share it,
and so share the one-review lease and the app switch; test sessions with their own queue
never disturb each other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction

from graph.queries import Queries, queries

T = TypeVar("T")


class Repository:
    def __init__(
        self, driver: AsyncDriver, database: str, deployment: str, *, named: Queries | None = None
    ) -> None:
        self.driver = driver
        self.database = database
        self.deployment = deployment
        self._named = named or queries()

    async def rows(self, tx: AsyncManagedTransaction, name: str, /, **params: Any) -> list[Any]:
        result = await tx.run(self._named.text(name), params)
        return [record async for record in result]

    async def write(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        async with self.driver.session(database=self.database) as session:
            return await session.execute_write(work)

    async def read(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        async with self.driver.session(database=self.database) as session:
            return await session.execute_read(work)
