"""The real `storygraph serve` and `storygraph worker` processes for e2e tests.

Spawned processes get a clean environment: only the system basics and the service settings
the test session itself uses are passed on, so a `MODEL_BASE_URL`, `API_TOKENS` or `LOCALE`
in the developer's shell never leaks into an "offline" process. A test adds what it needs
explicitly (`process_env(settings, MODEL_BASE_URL=...)`).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import redis
from arq.connections import ArqRedis

from engine.settings import PROJECT_ROOT, Settings
from local.redis_server import LocalRedis, with_redis_password
from tests.support.polling import until

# System basics a Python/Java process needs, and the settings that say WHICH services the
# test session runs against (a configured Neo4j or Redis must reach the children too).
PASS_THROUGH = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "JAVA_HOME",
    "VIRTUAL_ENV",
    "NEO4J_URI",
    "NEO4J_USER",
    "NEO4J_PASSWORD",
    "NEO4J_DATABASE",
    "REDIS_URL",
    "NEO4J_HEAP",
    "NEO4J_PAGECACHE",
    "LOCAL_DIR",
)


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


@dataclass
class AsToken(Server):
    """A server whose API has tokens (API_TOKENS): every request carries `token` unless it
    names another (`graphql(..., token=...)`)."""

    token: str = ""

    def graphql(
        self, query: str, variables: dict | None = None, token: str | None = None
    ) -> httpx.Response:  # type: ignore[type-arg]
        return super().graphql(query, variables, token or self.token)


def process_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in PASS_THROUGH}
    env.update(
        NEO4J_BOLT_PORT=str(settings.neo4j_bolt_port),
        NEO4J_HTTP_PORT=str(settings.neo4j_http_port),
        REDIS_PORT=str(settings.redis_port),
        QUEUE_NAME=settings.queue_name,
        LOG_LEVEL="WARNING",
        # one API process unless a test asks for more (`serve` defaults to one per core)
        API_WORKERS="1",
    )
    env.update(extra)
    return env


# Each spawned process logs to a file of its own (never to a pipe nobody reads: a full pipe
# blocks the server once ~64 KB of log lines pile up).
LOG_FILES: dict[int, Path] = {}


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    fd, name = tempfile.mkstemp(prefix=f"storygraph-{args[0]}-", suffix=".log")
    with os.fdopen(fd, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "api.cli", *args],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    LOG_FILES[proc.pid] = Path(name)
    return proc


def log_of(process: subprocess.Popen[bytes]) -> str:
    """What the process wrote to stderr so far."""
    path = LOG_FILES.get(process.pid)
    return path.read_text(errors="replace") if path is not None and path.exists() else ""


def _exited(process: subprocess.Popen[bytes], what: str) -> RuntimeError:
    return RuntimeError(f"{what} exited with {process.returncode}: {log_of(process)[-2000:]}")


def wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Until the server answers on its port; its own exit ends the wait at once."""

    def answers() -> bool:
        if process.poll() is not None:
            raise _exited(process, "server")
        try:
            httpx.get(f"{url}/healthz", timeout=1)
        except httpx.HTTPError:
            return False
        return True

    until(answers, what=f"{url} answering", timeout=timeout)


def wait_worker(
    settings: Settings, env: dict[str, str], process: subprocess.Popen[bytes], timeout: float = 60
) -> None:
    """Until the worker polls its queue: arq writes `<queue>:health-check` on its first loop."""
    key = f"{env.get('QUEUE_NAME', settings.queue_name)}:health-check"
    client = redis.Redis.from_url(settings.effective_redis_url)

    def polling() -> bool:
        if process.poll() is not None:
            raise _exited(process, "worker")
        return bool(client.exists(key))

    try:
        client.delete(key)
        until(polling, what="the worker polling its queue", timeout=timeout, every=0.1)
    finally:
        client.close()


def start_worker(settings: Settings, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A worker process that is polling its queue when this returns."""
    proc = spawn(["worker"], env)
    wait_worker(settings, env, proc)
    return proc


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    path = LOG_FILES.pop(process.pid, None)
    if path is not None:
        path.unlink(missing_ok=True)


def queue_keys(queue: str, job_ids: list[str]) -> list[str]:
    """Every Redis key a test's queue leaves: arq's queue (a sorted set named exactly like the
    queue, no prefix), each of its jobs' definition, retry and in-progress keys, and the
    review FIFO pool of that queue."""
    keys = [queue, f"storygraph:pool:{queue}"]
    for job_id in job_ids:
        keys += [f"arq:job:{job_id}", f"arq:retry:{job_id}", f"arq:in-progress:{job_id}"]
    return keys


def forget_queue(client: redis.Redis, queue: str) -> None:
    """Empty a test's queue by its real keys, so a job enqueued and never run cannot execute
    inside a later test's worker."""
    members: list[Any] = client.zrange(queue, 0, -1)  # type: ignore[assignment]
    ids = [i.decode() if isinstance(i, bytes) else str(i) for i in members]
    client.delete(*queue_keys(queue, ids))


@contextmanager
def api_servers(services: Settings) -> Iterator[Callable[..., Server]]:
    """`start(**env)`: an API process on a free port, serving when it returns; every one
    started is stopped when the block ends (the e2e `start_server` fixture's scope)."""
    started: list[subprocess.Popen[bytes]] = []

    def start(**extra: str) -> Server:
        port = free_port()
        env = process_env(services, API_PORT=str(port), **extra)
        proc = spawn(["serve"], env)
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        wait_http(url, proc)
        return Server(url, proc, env)

    try:
        yield start
    finally:
        for proc in started:
            if proc.poll() is None:
                stop(proc)


@contextmanager
def offline_stack(
    services: Settings, start_server: Any, label: str, token: str | None = None, **env: str
) -> Iterator[Server]:
    """An API (from the e2e `start_server` fixture) and a worker on a queue of their own, no
    model configured (the offline rule model), the heartbeat app switched on: what `make run`
    serves. `env`: more settings for both (e.g. TIMEZONE, API_TOKENS); with tokens, `token`
    (an admin's) is what the yielded server's requests carry unless they name another. The
    queue is emptied after."""
    queue = f"{services.queue_name}:{label}-{uuid.uuid4().hex[:6]}"
    started = start_server(QUEUE_NAME=queue, MODEL_BASE_URL="", **env)
    api = AsToken(started.url, started.process, started.env, token=token) if token else started
    worker = spawn(["worker"], process_env(services, QUEUE_NAME=queue, MODEL_BASE_URL="", **env))
    body = api.graphql("mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }")
    assert "errors" not in body.json(), body.text
    try:
        yield api
    finally:
        stop(worker)
        stop(api.process)  # the stack's API too: it serves nobody after the block
        r = redis.Redis.from_url(services.effective_redis_url)
        forget_queue(r, queue)
        r.close()


async def forget_queue_async(client: ArqRedis, queue: str) -> None:
    """`forget_queue` over an arq pool."""
    ids = [
        i.decode() if isinstance(i, bytes) else str(i) for i in await client.zrange(queue, 0, -1)
    ]
    await client.delete(*queue_keys(queue, ids))


@contextmanager
def own_redis(services: Settings, queue_prefix: str) -> Iterator[tuple[Settings, LocalRedis]]:
    """A redis-server of the test's own on a free port (never the shared one: a test may
    stop and start it), with the settings to reach it and a queue of its own."""
    mine = services.model_copy(
        update={
            "redis_port": free_port(),
            "redis_password": None,
            "queue_name": f"storygraph:{queue_prefix}:{uuid.uuid4().hex[:8]}",
        }
    )
    server = LocalRedis(mine)
    server.start()
    try:
        yield with_redis_password(mine), server
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)
