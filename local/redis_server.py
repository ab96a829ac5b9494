"""The project's own redis-server on loopback, for when REDIS_URL is unset.

The binary comes from Debian's `redis-server` package (`make deps` installs it on a fresh
machine). Data lives in `.local/redis-<port>`. The queue is kept on disk (AOF, fsync every
second): the truth of every job is in Neo4j, but a restart that dropped the queue left
recorded work waiting for the reconciler; with AOF, queued and deferred jobs survive a
`storygraph redis stop`/`start`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis
from pydantic import SecretStr

from engine.settings import Settings
from local.process import (
    LocalServiceError,
    pid_alive,
    port_open,
    read_pid,
    secret_file,
    stop_pid_file,
)

CANDIDATES = ("redis-server", "/usr/bin/redis-server", "/usr/sbin/redis-server")


def with_redis_password(settings: Settings) -> Settings:
    """Settings carrying the password of the project's own Redis (from its 0600 file), so
    every process started by the project authenticates; unchanged with REDIS_URL or a
    password already set."""
    path = settings.redis_password_file
    if not settings.manages_redis or settings.redis_password is not None or not path.exists():
        return settings
    password = path.read_text(encoding="utf-8").strip()
    return settings.model_copy(update={"redis_password": SecretStr(password)})


@dataclass(frozen=True)
class RedisStatus:
    running: bool
    pid: int | None
    url: str

    def describe(self) -> str:
        return (
            f"Redis is running (pid {self.pid}) at {self.url}"
            if self.running
            else "Redis is not running."
        )


class LocalRedis:
    def __init__(
        self,
        settings: Settings,
        *,
        folder: Path | None = None,
        password_file: Path | None = None,
    ) -> None:
        """One redis-server on `settings.redis_port`; a node of a replicated set
        (local/redis_ha.py) passes its own folder and the set's one password file."""
        self.settings = settings
        self.dir = folder or settings.local_dir / f"redis-{settings.redis_port}"
        self.pid_file = self.dir / "redis.pid"
        self.password_file = password_file or settings.redis_password_file

    def password(self) -> str:
        return secret_file(self.password_file, lambda: secrets.token_urlsafe(24))

    @staticmethod
    def binary() -> str:
        for name in CANDIDATES:
            found = shutil.which(name)
            if found:
                return found
        raise LocalServiceError(
            "redis-server is not installed: run `make deps` (apt-get install redis-server) "
            "or set REDIS_URL to an existing Redis."
        )

    def status(self) -> RedisStatus:
        pid = read_pid(self.pid_file)
        running = pid_alive(pid) and port_open(self.settings.redis_port)
        return RedisStatus(running, pid if running else None, self.settings.redacted_redis_url)

    def start(self, timeout: float = 20.0, extra: list[str] | None = None) -> RedisStatus:
        """Start it unless running; `extra` config lines are added (a replicated set's)."""
        current = self.status()
        if current.running:
            return current
        port = self.settings.redis_port
        if port_open(port):
            raise LocalServiceError(
                f"Port {port} on 127.0.0.1 is already in use by another program; stop it or "
                "choose another with REDIS_PORT."
            )
        binary = self.binary()
        self.dir.mkdir(parents=True, exist_ok=True)
        password = self.password()
        # the password goes in a 0600 config file, not the command line (`ps` shows that)
        conf = self.dir / "redis.conf"
        conf.unlink(missing_ok=True)
        fd = os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(f"requirepass {password}\n")
            if extra:  # a replica authenticates to its primary with the same password
                out.write(f"masterauth {password}\n" + "".join(f"{line}\n" for line in extra))
        subprocess.run(
            [
                binary,
                str(conf),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--daemonize",
                "yes",
                "--pidfile",
                str(self.pid_file),
                "--dir",
                str(self.dir),
                "--logfile",
                str(self.dir / "redis.log"),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--protected-mode",
                "yes",
                # bounded memory; full, Redis refuses writes (the enqueue fails visibly)
                # rather than evicting keys: an evicted job or lease would be lost silently
                "--maxmemory",
                self.settings.redis_maxmemory,
                "--maxmemory-policy",
                "noeviction",
            ],
            check=True,
            capture_output=True,
        )
        # started means answering: a Redis replaying its append-only file accepts connections
        # but refuses every command (LOADING) until the replay ends
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.status().running and self.answers():
                return self.status()
            time.sleep(0.1)
        raise LocalServiceError(
            f"Redis did not start within {timeout:.0f} s; see {self.dir / 'redis.log'}."
        )

    def answers(self) -> bool:
        """Whether it answers a PING (not still loading its data, not refusing the password)."""
        client = redis.Redis(
            host="127.0.0.1",
            port=self.settings.redis_port,
            password=self.password(),
            socket_timeout=1.0,
        )
        try:
            return bool(client.ping())
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            return False
        finally:
            client.close()

    def stop(self, timeout: float = 10.0) -> bool:
        return stop_pid_file(self.pid_file, timeout)
