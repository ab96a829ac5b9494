"""The probe use cases check the caller's role first and record a probe once per id."""

import pytest
from neo4j import AsyncDriver

from engine.errors import Forbidden, InvalidInput
from engine.principal import WORKER, Principal
from engine.settings import Settings
from graph.probes import ProbeStore
from jobs.deps import Deps
from jobs.probes import read_worker_probe, record_probe, start_probe

READER = Principal("reader-t", frozenset({"p1"}), frozenset({"reader"}))
OPERATOR = Principal("op-t", frozenset({"p1"}), frozenset({"operator"}))


async def test_a_reader_cannot_start_a_probe_and_a_bad_note_or_id_is_refused(
    neo4j_driver: AsyncDriver, settings: Settings
) -> None:
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    with pytest.raises(Forbidden):
        await start_probe(deps, READER, note="x")
    with pytest.raises(InvalidInput) as bad:
        await start_probe(deps, OPERATOR, note="x" * 501)
    assert bad.value.details["field"] == "note"
    with pytest.raises(InvalidInput) as bad:
        await start_probe(deps, OPERATOR, probe_id="p" * 101)
    assert bad.value.details["field"] == "id"
    ticket = await start_probe(deps, OPERATOR, note="minted")
    assert ticket.id.startswith("probe-") and ticket.enqueued is False  # no pool: nothing queued


async def test_the_worker_records_a_probe_once_and_a_reader_reads_it(
    neo4j_driver: AsyncDriver, settings: Settings
) -> None:
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None, worker_id="w-test")
    probe_id = deps.ids("probe")
    with pytest.raises(Forbidden):
        await record_probe(deps, READER, probe_id=probe_id, note="not the worker")
    assert await read_worker_probe(deps, READER, probe_id) is None
    await record_probe(deps, WORKER, probe_id=probe_id, note="hello")
    await record_probe(deps, WORKER, probe_id=probe_id, note="hello")
    seen = await read_worker_probe(deps, READER, probe_id)
    assert seen is not None
    assert (seen.note, seen.worker_id, seen.runs) == ("hello", "w-test", 2)
    assert seen.written_at.tzinfo is not None
    assert await ProbeStore(neo4j_driver, settings.neo4j_database).get("probe-missing") is None
