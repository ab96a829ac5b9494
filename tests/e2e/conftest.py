"""End-to-end: the real `storygraph serve` and `storygraph worker` processes over HTTP."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from engine.settings import Settings
from tests.support.processes import (
    Server,
    free_port,
    offline_stack,
    process_env,
    spawn,
    start_worker,
    stop,
    wait_http,
)


@pytest.fixture(scope="package")
def start_server(services: Settings) -> Iterator:  # type: ignore[type-arg]
    started: list[subprocess.Popen[bytes]] = []

    def start(**extra: str) -> Server:
        port = free_port()
        env = process_env(services, API_PORT=str(port), **extra)
        proc = spawn(["serve"], env)
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        wait_http(url, proc)
        return Server(url, proc, env)

    yield start
    for proc in started:
        stop(proc)


@pytest.fixture(scope="package")
def api(start_server) -> Server:  # type: ignore[no-untyped-def]
    return start_server()


# Package scope: the shared worker stops when the e2e tests end, so it never takes jobs that
# integration tests enqueue on the same queue with their own workers and scripted models.
@pytest.fixture(scope="package")
def worker(services: Settings) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_worker(services, process_env(services))
    yield proc
    stop(proc)


@pytest.fixture
def offline(services: Settings, start_server) -> Iterator[Server]:  # type: ignore[no-untyped-def]
    """An API and a worker on a queue of their own, no model configured (the offline rule
    model), TIMEZONE Asia/Shanghai, the heartbeat app switched on: what `make run` serves."""
    with offline_stack(services, start_server, "agenda", TIMEZONE="Asia/Shanghai") as api:
        yield api
