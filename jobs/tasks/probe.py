"""The worker probe job: proves a job travels API -> Redis -> worker -> Neo4j -> API."""

from __future__ import annotations

from typing import Any

from engine.principal import WORKER
from jobs.deps import Deps
from jobs.probes import record_probe


async def probe(ctx: dict[str, Any], *, probe_id: str, note: str) -> str:
    """Idempotent by key: a second run of the same probe only counts the run."""
    return await record_probe(Deps.from_ctx(ctx), WORKER, probe_id=probe_id, note=note)
