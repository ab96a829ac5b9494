"""A Neo4j driver wrapper that counts the queries run in read transactions and auto-commit
reads (`Store.read_one`), for tests that prove a GraphQL page costs a fixed number of queries."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver


class CountingTx:
    def __init__(self, tx: Any, counter: list[str]) -> None:
        self._tx, self._counter = tx, counter

    async def run(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self._counter.append(str(query)[:60])
        return await self._tx.run(query, *args, **kwargs)


class CountingSession:
    def __init__(self, session: Any, counter: list[str]) -> None:
        self._session, self._counter = session, counter

    async def __aenter__(self) -> CountingSession:
        await self._session.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._session.__aexit__(*exc)

    async def run(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self._counter.append(str(getattr(query, "text", query))[:60])
        return await self._session.run(query, *args, **kwargs)

    async def execute_read(self, work: Any, *args: Any, **kwargs: Any) -> Any:
        return await self._session.execute_read(
            lambda tx, *a, **k: work(CountingTx(tx, self._counter), *a, **k), *args, **kwargs
        )


class CountingDriver:
    """Counts every query run in a read transaction; everything else goes to the driver."""

    def __init__(self, driver: AsyncDriver) -> None:
        self._driver = driver
        self.queries: list[str] = []

    def session(self, **kwargs: Any) -> CountingSession:
        return CountingSession(self._driver.session(**kwargs), self.queries)
