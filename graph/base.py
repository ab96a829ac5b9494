"""The one way to the database: a `Store` every repository builds on (docs/architecture/index.md).

    class WatchRepository(Store):
        async def get(self, scope, watch_id):
            async def work(tx):
                return decode(await self.rows(tx, "watch/get_watch", scope=scope, id=watch_id))
            return await self.read(work)

- `read(work)` / `write(work)`: one session per call (never shared between tasks), the
  database passed per call, `work(tx)` run by `execute_read` / `execute_write`. The driver
  may retry `work`: keep it idempotent and consume every result inside it. A state change is
  read-decide-write inside ONE `write` (`graph/review/runs.py` `mutate`): lock or read,
  call the engine's decision, write what it returns; an engine error raised inside rolls
  the whole transaction back.
- `rows(tx, key, **params)`: a named query (`cypher/<area>/<name>.cypher`, `graph.queries`)
  run in that transaction, its records read to the end. Datetime parameters go in as UTC and
  come back as driver DateTimes: decode them with `graph.temporal` (one codec).
- `read_one(key, **params)`: a single named read statement as an auto-commit transaction
  (one round trip fewer than `read`), tried again through `read` on a retryable failure.
- `query(key, **params)`: a single named statement outside a transaction function, sent as
  `neo4j.Query(text, metadata={"query": key}, timeout=...)` so its name shows in the query log.
- Errors: a uniqueness violation is `Conflict` (CONFLICT). An unreachable database stays the
  driver's `ServiceUnavailable` / `SessionExpired`: the edges decide what that means (the API
  answers UNAVAILABLE, `jobs/resilient_worker.py` retries the job with backoff).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    AsyncDriver,
    AsyncManagedTransaction,
    Query,
    Record,
    unit_of_work,
)
from neo4j.exceptions import ConstraintError, DriverError, Neo4jError

from engine.errors import Conflict
from graph.queries import Queries, queries

T = TypeVar("T")
log = logging.getLogger("storygraph.graph")
Work = Callable[[AsyncManagedTransaction], Awaitable[T]]


async def rows(
    tx: AsyncManagedTransaction, key: str, /, named: Queries | None = None, **params: Any
) -> list[Record]:
    """The records of named query `key` run in `tx`, consumed inside the transaction."""
    result = await tx.run((named or queries()).text(key), params)
    return [record async for record in result]


@contextmanager
def mapped_errors() -> Iterator[None]:
    """Driver errors a client can act on, as engine errors (see the module note)."""
    try:
        yield
    except ConstraintError as exc:
        # Neo4j's message names labels, properties and node ids: logged, never returned
        log.info("constraint refused a write", extra={"fields": {"error": exc.message}})
        raise Conflict("a record with this key already exists") from exc


class Store:
    """A driver and the database to use, with the transaction plumbing of every repository."""

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        named: Queries | None = None,
        timeout: float | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.timeout = timeout
        self._named = named or queries()

    def _unit(self, work: Work[T]) -> Work[T]:
        label = getattr(work, "__qualname__", "work")
        wrapped: Work[T] = unit_of_work(metadata={"work": label}, timeout=self.timeout)(work)
        return wrapped

    async def read(self, work: Work[T]) -> T:
        with mapped_errors():
            async with self.driver.session(database=self.database) as session:
                return await session.execute_read(self._unit(work))

    async def write(self, work: Work[T]) -> T:
        with mapped_errors():
            async with self.driver.session(database=self.database) as session:
                return await session.execute_write(self._unit(work))

    async def read_one(self, key: str, /, **params: Any) -> list[Record]:
        """The records of ONE named read statement, sent as an auto-commit transaction.

        Its RUN and PULL go in one round trip; a transaction function needs a second one for
        its COMMIT (0.6-0.7 ms of a 4 ms page read here). A failure the driver would retry
        (an unreachable server, a leader change, a transient error) is tried again through
        `read`, so the driver's retry policy and patience still apply."""
        statement = Query(self._named.text(key), metadata={"query": key}, timeout=self.timeout)
        try:
            with mapped_errors():
                async with self.driver.session(
                    database=self.database, default_access_mode=READ_ACCESS
                ) as session:
                    result = await session.run(statement, params)
                    return [record async for record in result]
        except (Neo4jError, DriverError) as exc:
            if not exc.is_retryable():
                raise

        async def work(tx: AsyncManagedTransaction) -> list[Record]:
            return await self.rows(tx, key, **params)

        return await self.read(work)

    async def rows(self, tx: AsyncManagedTransaction, key: str, /, **params: Any) -> list[Record]:
        return await rows(tx, key, self._named, **params)

    async def query(self, key: str, /, *, write: bool = False, **params: Any) -> list[Record]:
        """One named statement in its own auto-routed transaction."""
        statement = Query(self._named.text(key), metadata={"query": key}, timeout=self.timeout)
        with mapped_errors():
            records, _, _ = await self.driver.execute_query(
                statement, params, database_=self.database, routing_="w" if write else "r"
            )
        return list(records)
