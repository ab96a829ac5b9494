"""Local service processes (the project's own Neo4j and Redis): pid files, ports, stopping.

Both launchers keep a pid file and must answer start/stop/status idempotently, so they share
these few process facts instead of each guessing its own way.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path


class LocalServiceError(RuntimeError):
    """A local service could not be set up; the message is one sentence for a person."""


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); treat it as gone.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and ") Z " in stat.read_text())


def read_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def stop_pid_file(pid_file: Path, timeout: float) -> bool:
    """SIGTERM the recorded process, SIGKILL after `timeout`; True when one was running."""
    pid = read_pid(pid_file)
    if pid is None or not pid_alive(pid):
        pid_file.unlink(missing_ok=True)
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    pid_file.unlink(missing_ok=True)
    return True


def secret_file(path: Path, make: Callable[[], str]) -> str:
    """The secret stored in `path`, created by `make()` the first time. The file is created
    with mode 0600 (never written first and chmod-ed after, which leaves a window in which
    another local user can read it)."""
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = make()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secret + "\n")
    return secret
