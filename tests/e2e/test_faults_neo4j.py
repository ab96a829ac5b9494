"""Neo4j outages end in answers and recovery, not hangs or dead processes.

The test runs its OWN Neo4j on free ports (never the shared one): the API and a worker
start while it is down, answer `health` with neo4j false and other requests with
UNAVAILABLE (each answer must come before the client gives up, `ANSWER_WITHIN_S`; how
long they took is printed, never asserted: no wall-clock bounds in tests); when it comes up
they become healthy by themselves (the migrations run then) and a job round-trips; a second
outage under running processes is answered the same way.
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from neo4j import GraphDatabase

from engine.settings import Settings
from graph.driver import neo4j_password
from local.neo4j_server import LocalNeo4j
from tests.support.polling import until
from tests.support.processes import free_port, process_env, spawn, stop, wait_http

HEALTH = "{ health { neo4j redis } }"
READ = '{ workerProbe(id: "nothing-here") { id } }'
ANSWER_WITHIN_S = 60.0  # the client's patience: an answer after it is a hang


@pytest.fixture
def own_neo4j(services: Settings) -> Iterator[tuple[Settings, LocalNeo4j]]:
    mine = services.model_copy(
        update={
            "neo4j_bolt_port": free_port(),
            "neo4j_http_port": free_port(),
            "neo4j_heap": "512m",
            "neo4j_pagecache": "64m",
            "queue_name": f"storygraph:neo4jfault:{uuid.uuid4().hex[:8]}",
        }
    )
    server = LocalNeo4j(mine)
    # an installed Neo4j that is down: its first start (which sets our password) is done
    server.start()
    server.stop()
    yield mine, server
    server.stop()
    shutil.rmtree(server.home, ignore_errors=True)


def _post(url: str, query: str, variables: dict | None = None) -> tuple[dict, float]:  # type: ignore[type-arg]
    started = time.monotonic()
    payload = {"query": query, "variables": variables or {}}
    body = httpx.post(f"{url}/graphql", json=payload, timeout=ANSWER_WITHIN_S).json()
    return body, time.monotonic() - started


def _assert_outage_answers(url: str) -> None:
    health, health_took = _post(url, HEALTH)
    assert health["data"]["health"] == {"neo4j": False, "redis": True}
    read, read_took = _post(url, READ)
    assert read["errors"][0]["extensions"]["code"] == "UNAVAILABLE", read
    print(f"Neo4j down: health answered in {health_took:.1f} s, a read in {read_took:.1f} s")


def _wait_neo4j_healthy(url: str, within_s: float = 60) -> None:
    until(lambda: _post(url, HEALTH)[0]["data"]["health"]["neo4j"], what="the API seeing Neo4j back",
          timeout=within_s)  # fmt: skip


def _round_trip(url: str) -> None:
    probe_id = f"nf-{uuid.uuid4().hex[:8]}"
    enqueue = 'mutation($id: ID!) { enqueueProbe(id: $id, note: "back") { enqueued } }'
    enq, _ = _post(url, enqueue, {"id": probe_id})
    assert enq["data"]["enqueueProbe"]["enqueued"] is True, enq
    probe = "query($id: ID!) { workerProbe(id: $id) { id } }"
    until(
        lambda: _post(url, probe, {"id": probe_id})[0],
        lambda found: found.get("data") and found["data"]["workerProbe"],
        "the worker running a job after Neo4j came back",
        # the worker reconnects with backoff (up to 30 s between tries) and the migrations
        # run once Neo4j is back: on two busy cores that took more than a minute once
        timeout=150,
    )


@pytest.mark.timeout(300)  # three Neo4j starts (~15 s each on 2 cores) and two outages
# LocalNeo4j starts a detached server and drops its Popen handle on purpose
@pytest.mark.filterwarnings("ignore:subprocess .* is still running:ResourceWarning")
def test_api_and_worker_start_during_a_neo4j_outage_answer_unavailable_and_recover(
    own_neo4j: tuple[Settings, LocalNeo4j],
) -> None:
    settings, server = own_neo4j
    port = free_port()
    env = process_env(settings, API_PORT=str(port))
    url = f"http://127.0.0.1:{port}"
    api = spawn(["serve"], env)
    worker = spawn(["worker"], env)
    try:
        wait_http(url, api)  # the API starts with Neo4j down (it used to exit)
        _assert_outage_answers(url)
        assert worker.poll() is None, "the worker exited because Neo4j was down"

        server.start()
        _wait_neo4j_healthy(url)
        _round_trip(url)  # the worker became useful without a restart
        with GraphDatabase.driver(
            settings.effective_neo4j_uri, auth=(settings.neo4j_user, neo4j_password(settings))
        ) as driver:
            names, _, _ = driver.execute_query("MATCH (m:Migration) RETURN m.name AS name")
        assert len(names) >= 10, "migrations did not run when Neo4j came back"

        server.stop()  # an outage under running processes
        _assert_outage_answers(url)
        server.start()
        _wait_neo4j_healthy(url)
        _round_trip(url)
        assert api.poll() is None and worker.poll() is None
    finally:
        stop(worker)
        stop(api)
