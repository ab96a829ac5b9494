"""Start while Neo4j is down: wait for it with backoff, then apply the migrations.

A process (API or worker) that starts during a Neo4j outage stays up and reports itself
unhealthy; the schema is brought up to date as soon as Neo4j answers, without a restart.
Errors other than "not reachable" (a migration edited after it was applied, bad
credentials) are not waited out: they raise at once.
"""

from __future__ import annotations

import asyncio
import logging

from neo4j import AsyncDriver
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError

from graph.migrate import migrate

log = logging.getLogger("storygraph.neo4j")

NOT_REACHABLE = (ServiceUnavailable, SessionExpired, TransientError, OSError)
BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 10.0


async def migrate_when_available(driver: AsyncDriver, database: str) -> list[str]:
    """Apply pending migrations once Neo4j answers; returns the names applied."""
    backoff = BACKOFF_FIRST_S
    waiting_since: float | None = None
    loop = asyncio.get_running_loop()
    while True:
        try:
            applied = await migrate(driver, database)
        except NOT_REACHABLE as exc:
            if waiting_since is None:
                waiting_since = loop.time()
                log.error(
                    "Neo4j is unreachable; waiting for it before applying migrations",
                    extra={"fields": {"error": str(exc) or type(exc).__name__}},
                )
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, BACKOFF_MAX_S)
            continue
        if waiting_since is not None:
            log.warning(
                "Neo4j is reachable; migrations applied",
                extra={"fields": {"waited_s": round(loop.time() - waiting_since, 1)}},
            )
        return applied
