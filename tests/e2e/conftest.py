"""End-to-end: the real `storygraph serve` and `storygraph worker` processes over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from engine.settings import PROJECT_ROOT, Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    env: dict[str, str]

    def graphql(
        self, query: str, variables: dict | None = None, token: str | None = None
    ) -> httpx.Response:  # type: ignore[type-arg]
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.post(
            f"{self.url}/graphql",
            json={"query": query, "variables": variables or {}},
            headers=headers,
            timeout=30,
        )


def process_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        NEO4J_BOLT_PORT=str(settings.neo4j_bolt_port),
        NEO4J_HTTP_PORT=str(settings.neo4j_http_port),
        REDIS_PORT=str(settings.redis_port),
        QUEUE_NAME=settings.queue_name,
        LOG_LEVEL="WARNING",
    )
    env.update(extra)
    return env


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "api.cli", *args],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode() if process.stderr else ""
            raise RuntimeError(f"server exited with {process.returncode}: {err[-2000:]}")
        try:
            httpx.get(f"{url}/healthz", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()


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
    proc = spawn(["worker"], process_env(services))
    time.sleep(0.5)
    yield proc
    stop(proc)
