"""Worker probes as use cases: an operator enqueues one, a reader reads what the worker wrote,
and the worker records it. The probe proves a job travels API -> Redis -> worker -> Neo4j.

Probes hold no project data and belong to no scope: enqueueing needs `operator`, reading
`reader` (the roles of `enqueueProbe` and `workerProbe`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidInput
from engine.principal import Principal
from graph.probes import Probe, ProbeStore
from jobs.deps import Deps
from jobs.queue import enqueue_probe

NOTE_MAX_CHARS = 500
ID_MAX_CHARS = 100


@dataclass(frozen=True)
class ProbeTicket:
    id: str
    enqueued: bool  # False: a probe with this id was already queued or ran


def _store(deps: Deps) -> ProbeStore:
    return ProbeStore(deps.driver, deps.database)


async def start_probe(
    deps: Deps, principal: Principal, *, note: str = "", probe_id: str | None = None
) -> ProbeTicket:
    principal.require("operator")
    if len(note) > NOTE_MAX_CHARS:
        raise InvalidInput(f"note must be at most {NOTE_MAX_CHARS} characters", field="note")
    if probe_id is not None and not (0 < len(probe_id) <= ID_MAX_CHARS):
        raise InvalidInput(f"id must be 1 to {ID_MAX_CHARS} characters", field="id")
    probe_id = probe_id or deps.ids("probe")
    if deps.pool is None:
        return ProbeTicket(probe_id, enqueued=False)
    enqueued = await enqueue_probe(deps.pool, deps.settings, probe_id=probe_id, note=note)
    return ProbeTicket(probe_id, enqueued)


async def read_worker_probe(deps: Deps, principal: Principal, probe_id: str) -> Probe | None:
    principal.require("reader")
    return await _store(deps).get(probe_id)


async def record_probe(deps: Deps, principal: Principal, *, probe_id: str, note: str) -> str:
    """The worker's side; idempotent by id (a second run only counts the run)."""
    principal.require("operator")
    await _store(deps).record(id=probe_id, note=note, worker_id=deps.worker_id)
    return probe_id
