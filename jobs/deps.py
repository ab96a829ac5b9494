"""What every use case is given besides the Principal: the process's resources, the clock
and the id factory (jobs/README.md).

Built once per request by the API (`api/context.py` `Context.deps`) and once per job from
arq's ctx (`Deps.from_ctx`); tests build one with a fixed clock and predictable ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.clock import Clock, instant, utc, utcnow
from engine.ids import Ids, new_id
from engine.settings import Settings
from jobs.llm.embeddings import Embedder

# A task's `now`, the one way every arq task moves time: None runs on the wall clock; a moment
# (ISO text, as the queue carries it, or a datetime when a test calls the task inline) stops
# the job's clock there, as an admin's `runConcernScheduler(now)` or a test asks.
JobNow = datetime | str | None


def job_clock(now: JobNow) -> Clock:
    """The clock a job runs on: the wall clock, or one stopped at `now` (with its zone)."""
    if now is None:
        return utcnow
    moment = now if isinstance(now, datetime) else datetime.fromisoformat(now)
    if moment.tzinfo is None:
        raise ValueError("a job's now must carry its timezone")
    return lambda: moment


@dataclass(frozen=True)
class Deps:
    settings: Settings
    driver: AsyncDriver
    pool: ArqRedis | None  # None: effects that enqueue are skipped (a job run inline)
    clock: Clock = utcnow
    ids: Ids = new_id
    worker_id: str = "api"
    # hybrid search's embeddings client (EMBEDDING_BASE_URL); None: search is lexical
    embedder: Embedder | None = None

    @property
    def database(self) -> str:
        return self.settings.neo4j_database

    @classmethod
    def from_ctx(cls, ctx: Mapping[str, Any], *, now: JobNow = None) -> Deps:
        """The deps of an arq job (its ctx as `jobs.worker.worker_context` builds it), on the
        clock of the task's `now` argument (`job_clock`)."""
        return cls(
            settings=ctx["settings"],
            driver=ctx["driver"],
            pool=ctx.get("redis"),
            clock=job_clock(now),
            worker_id=str(ctx.get("worker_id", "inline")),
            embedder=ctx.get("embedder"),
        )


def as_of_now(deps: Deps, as_of: datetime | None) -> datetime:
    """The asOf argument in UTC (a time without a zone is INVALID_INPUT), or now."""
    return instant(as_of, "asOf") or utc(deps.clock())
