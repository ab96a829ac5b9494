"""`storygraph up` keeps its worker running: a worker that exits is started again.

The worker runs as a child process watched by a thread (the API's server owns the main
thread). Each unexpected exit prints one line — code, restart number, delay — and the next
start waits with backoff (1 s doubling to 30 s; a worker that ran a minute starts the count
again), so a worker that crashes at once does not spin. `stop()` ends it for good.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 30.0
STABLE_AFTER_S = 60.0


class Supervisor:
    def __init__(
        self,
        command: list[str],
        *,
        cwd: Path,
        name: str = "worker",
        out: TextIO | None = None,
        env: dict[str, str] | None = None,
        spawn: Callable[..., subprocess.Popen[bytes]] = subprocess.Popen,
    ) -> None:
        self.command = command
        self.cwd = cwd
        self.name = name
        self.out = out or sys.stdout
        self.env = env
        self._spawn = spawn
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        with self._lock:
            return self._process.pid if self._process else None

    def start(self) -> None:
        self._launch()
        self._thread = threading.Thread(target=self._watch, name=f"{self.name}-supervisor")
        self._thread.daemon = True
        self._thread.start()

    def _launch(self) -> None:
        with self._lock:
            self._process = self._spawn(self.command, cwd=self.cwd, env=self.env)

    def _say(self, line: str) -> None:
        print(f"storygraph: {line}", file=self.out, flush=True)

    def _watch(self) -> None:
        backoff = BACKOFF_FIRST_S
        while not self._stopping.is_set():
            with self._lock:
                process = self._process
            assert process is not None
            started = time.monotonic()
            code = process.wait()
            if self._stopping.is_set():
                return
            if time.monotonic() - started >= STABLE_AFTER_S:
                backoff = BACKOFF_FIRST_S
            self.restarts += 1
            self._say(
                f"the {self.name} exited with code {code}; restarting it in {backoff:.0f} s "
                f"(restart {self.restarts})"
            )
            if self._stopping.wait(backoff):
                return
            self._launch()
            self._say(f"the {self.name} was restarted (pid {self.pid})")
            backoff = min(backoff * 2, BACKOFF_MAX_S)

    def stop(self, timeout: float = 20.0) -> None:
        self._stopping.set()
        with self._lock:
            process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._thread is not None:
            self._thread.join(timeout=5)
