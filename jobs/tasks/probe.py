"""The worker probe job: proves a job travels API -> Redis -> worker -> Neo4j -> API."""

from __future__ import annotations

from typing import Any

from graph.probes import write_probe


async def probe(ctx: dict[str, Any], *, probe_id: str, note: str) -> str:
    """Idempotent by key: a second run of the same probe only counts the run."""
    await write_probe(
        ctx["driver"],
        ctx["settings"].neo4j_database,
        id=probe_id,
        note=note,
        worker_id=ctx["worker_id"],
    )
    return probe_id
