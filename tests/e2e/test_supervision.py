"""Outages end in recovery: `storygraph up` restarts a worker that dies and says so, and
`health` counts live workers, so a stack with none is visibly unhealthy."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from engine.settings import PROJECT_ROOT, Settings
from jobs.liveness import alive_key
from tests.support.polling import until
from tests.support.processes import (
    Server,
    free_port,
    process_env,
    spawn,
    start_worker,
    stop,
    wait_http,
)

HEALTH = "{ health { neo4j redis workers healthy } }"


def _health(url: str) -> dict[str, object]:
    body = httpx.post(f"{url}/graphql", json={"query": HEALTH}, timeout=10).json()
    health: dict[str, object] = body["data"]["health"]
    return health


def _wait_health(url: str, want: dict[str, object], within_s: float = 30) -> dict[str, object]:

    def read() -> dict[str, object]:
        try:
            return _health(url)
        except httpx.TransportError:  # not listening yet
            return {}

    return until(read, lambda seen: all(seen.get(k) == v for k, v in want.items()),
                 f"health {want}", within_s)  # fmt: skip


def _alive_keys(r: redis.Redis, queue: str) -> set[str]:
    return {k.decode() for k in r.scan_iter(match=alive_key(queue, "*"))}


def _children(pid: int) -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            found.append((int(entry.name), cmd))
    return found


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _worker_child(up: subprocess.Popen[str], within_s: float = 30) -> int:

    def worker_pids() -> list[int]:
        return [pid for pid, cmd in _children(up.pid) if cmd.rstrip().endswith("api.cli worker")]

    return until(worker_pids, what="storygraph up starting a worker", timeout=within_s)[0]


class Lines:
    """A child's stdout, read on a thread so the test can wait for a line."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert process.stdout is not None
        stream = self._stream = process.stdout
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(line.rstrip("\n"))

    def close(self) -> None:
        self._thread.join(timeout=5)
        self._stream.close()

    def wait_for(self, text: str, within_s: float = 30) -> str:
        found = until(
            lambda: [line for line in self.lines if text in line],
            what=f"a line with {text!r} (last: {self.lines[-20:]})",
            timeout=within_s,
        )
        return found[0]


@pytest.fixture
def up(services: Settings) -> Iterator[tuple[str, subprocess.Popen[str], Lines, str]]:
    port = free_port()
    queue = f"storygraph:up:{uuid.uuid4().hex[:8]}"
    env = process_env(services, API_PORT=str(port), QUEUE_NAME=queue)
    proc = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "up", "--no-demo"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines = Lines(proc)
    url = f"http://127.0.0.1:{port}"
    try:
        lines.wait_for("storygraph is up", within_s=90)
        yield url, proc, lines, queue
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        lines.close()


def test_up_restarts_a_killed_worker_and_says_so(
    up: tuple[str, subprocess.Popen[str], Lines, str], services: Settings
) -> None:
    url, proc, lines, queue = up
    _wait_health(url, {"workers": 1, "healthy": True})
    first = _worker_child(proc)

    os.kill(first, signal.SIGKILL)
    said = lines.wait_for("exited with code -9")
    assert "restarting it in 1 s (restart 1)" in said
    lines.wait_for("was restarted (pid")
    second = _worker_child(proc)
    assert second != first
    # the dead worker's liveness key expires; the new one's is the only one left
    new_only = {alive_key(queue, f"{socket.gethostname()}:{second}")}
    r = redis.Redis.from_url(services.effective_redis_url)
    try:
        until(
            lambda: _alive_keys(r, queue),
            lambda left: left == new_only,
            "only the new worker alive",
        )
    finally:
        r.close()
    assert _health(url) == {"neo4j": True, "redis": True, "workers": 1, "healthy": True}

    # a second crash right away waits longer (backoff), and is said too
    os.kill(second, signal.SIGKILL)
    assert "restarting it in 2 s (restart 2)" in lines.wait_for("(restart 2)")
    _wait_health(url, {"workers": 1, "healthy": True})
    third = _worker_child(proc)

    # stopping `up` (SIGTERM, as a service manager does) stops its worker, not restarted:
    # the worker's own pid is gone, not only from `up`'s children (a dead parent has none)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert not _alive(third), "the worker outlived `storygraph up`"
    assert not any("(restart 3)" in line for line in lines.lines)


def test_health_counts_live_workers_and_no_worker_is_unhealthy(services: Settings) -> None:
    port = free_port()
    env = process_env(
        services, API_PORT=str(port), QUEUE_NAME=f"storygraph:hc:{uuid.uuid4().hex[:8]}"
    )
    api = spawn(["serve"], env)
    worker: subprocess.Popen[bytes] | None = None
    try:
        server = Server(f"http://127.0.0.1:{port}", api, env)
        wait_http(server.url, api)
        assert _health(server.url) == {
            "neo4j": True,
            "redis": True,
            "workers": 0,
            "healthy": False,
        }
        healthz = httpx.get(f"{server.url}/healthz", timeout=10)
        assert healthz.status_code == 503 and healthz.json()["workers"] == 0

        worker = start_worker(services, env)
        _wait_health(server.url, {"workers": 1, "healthy": True}, within_s=10)
        healthz = httpx.get(f"{server.url}/healthz", timeout=10)
        assert healthz.status_code == 200
        assert healthz.json() == {"neo4j": True, "redis": True, "workers": 1}

        stop(worker)  # a clean stop removes its liveness key at once
        worker = None
        _wait_health(server.url, {"workers": 0, "healthy": False}, within_s=10)
    finally:
        if worker is not None:
            stop(worker)
        stop(api)
