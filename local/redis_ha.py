"""The project's own replicated Redis on loopback (REDIS_HA, `storygraph up --redis-ha`): a
primary, its replicas and three sentinels, from Debian's `redis-server` and `redis-sentinel`.

Each node is a `LocalRedis` with its own folder (`.local/redis-ha-<primary port>/<port>`), AOF
on, the project's password, and `min-replicas-to-write 1`: a primary without a connected
replica refuses writes (NOREPLICAS) instead of accepting what a failover would lose. A node
(re)started while sentinels are up joins as a replica of whatever primary they name now, so
a former primary coming back never accepts writes beside the promoted one. Sentinels keep
their own state in their config files (they rewrite them on a failover), which are written
only the first time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import redis

from engine.settings import Settings
from local.process import (
    LocalServiceError,
    pid_alive,
    port_open,
    read_pid,
    stop_pid_file,
)
from local.redis_server import LocalRedis

SENTINEL_CANDIDATES = ("redis-sentinel", "/usr/bin/redis-sentinel")
QUORUM = 2
DOWN_AFTER_MS = 2000
FAILOVER_TIMEOUT_MS = 10000


@dataclass(frozen=True)
class HaStatus:
    primary: tuple[str, int] | None
    nodes: dict[int, bool]
    sentinels: dict[int, bool]
    master_name: str

    @property
    def running(self) -> bool:
        return self.primary is not None and all(self.sentinels.values())

    def describe(self) -> str:
        up = [str(p) for p, alive in self.nodes.items() if alive]
        sentinels = [str(p) for p, alive in self.sentinels.items() if alive]
        where = f"{self.primary[0]}:{self.primary[1]}" if self.primary else "none"
        return (
            f"Redis (Sentinel, master {self.master_name!r}): primary {where}; "
            f"nodes up {', '.join(up) or 'none'}; sentinels up {', '.join(sentinels) or 'none'}"
        )


class LocalRedisHA:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.dir = settings.local_dir / f"redis-ha-{settings.redis_ha_primary_port}"
        self.ports = [settings.redis_ha_primary_port, *settings.redis_ha_replica_ports]

    def node(self, port: int) -> LocalRedis:
        return LocalRedis(
            self.settings.model_copy(update={"redis_port": port}),
            folder=self.dir / str(port),
            password_file=self.settings.redis_password_file,
        )

    def sentinel_dir(self, port: int) -> Path:
        return self.dir / f"sentinel-{port}"

    def password(self) -> str:
        return self.node(self.ports[0]).password()

    def current_primary(self) -> tuple[str, int] | None:
        """The primary the live sentinels name (the first that answers), else None."""
        for port in self.settings.redis_ha_sentinel_ports:
            if not port_open(port):
                continue
            try:
                client = redis.Redis(port=port, socket_timeout=1.0)
                try:
                    found = client.execute_command(
                        "SENTINEL", "get-master-addr-by-name", self.settings.redis_master_name
                    )
                finally:
                    client.close()
            except redis.RedisError:
                continue
            if found:
                host, port_text = (v.decode() if isinstance(v, bytes) else str(v) for v in found)
                return host, int(port_text)
        return None

    def start_node(self, port: int) -> None:
        primary = self.current_primary() or ("127.0.0.1", self.ports[0])
        extra = ["min-replicas-to-write 1", "min-replicas-max-lag 10"]
        if primary[1] != port:
            extra += [f"replicaof {primary[0]} {primary[1]}"]
        self.node(port).start(extra=extra)

    def stop_node(self, port: int) -> bool:
        return self.node(port).stop()

    def start(self, timeout: float = 30.0) -> HaStatus:
        self.dir.mkdir(parents=True, exist_ok=True)
        binary = sentinel_binary()
        for port in self.ports:
            if not self.node(port).status().running:
                self.start_node(port)
        password = self.password()
        for port in self.settings.redis_ha_sentinel_ports:
            self._start_sentinel(binary, port, password)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.status()
            if status.running and self._replicas_linked():
                return status
            time.sleep(0.2)
        raise LocalServiceError(
            f"Redis with Sentinel did not come up within {timeout:.0f} s; see the logs in "
            f"{self.dir}."
        )

    def _replicas_linked(self) -> bool:
        primary = self.current_primary()
        if primary is None:
            return False
        client = redis.Redis(port=primary[1], password=self.password(), socket_timeout=1.0)
        try:
            info = cast(dict[str, Any], client.info("replication"))
        except redis.RedisError:
            return False
        finally:
            client.close()
        # replicas the primary counts for min-replicas-to-write (online, acknowledging)
        good = int(info.get("min_slaves_good_slaves", 0))
        return bool(info.get("role") == "master" and good >= 1)

    def _start_sentinel(self, binary: str, port: int, password: str) -> None:
        folder = self.sentinel_dir(port)
        pid_file = folder / "sentinel.pid"
        if pid_alive(read_pid(pid_file)) and port_open(port):
            return
        if port_open(port):
            raise LocalServiceError(
                f"Port {port} on 127.0.0.1 is already in use by another program; stop it or "
                "choose others with REDIS_HA_SENTINEL_PORTS."
            )
        folder.mkdir(parents=True, exist_ok=True)
        conf = folder / "sentinel.conf"
        if not conf.exists():  # later starts keep what the sentinel learnt (the primary)
            name = self.settings.redis_master_name
            lines = [
                f"port {port}",
                "bind 127.0.0.1",
                f"dir {folder}",
                f"sentinel monitor {name} 127.0.0.1 {self.ports[0]} {QUORUM}",
                f"sentinel auth-pass {name} {password}",
                f"sentinel down-after-milliseconds {name} {DOWN_AFTER_MS}",
                f"sentinel failover-timeout {name} {FAILOVER_TIMEOUT_MS}",
                f"sentinel parallel-syncs {name} 1",
            ]
            fd = os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write("\n".join(lines) + "\n")
        subprocess.run(
            [
                binary,
                str(conf),
                "--daemonize",
                "yes",
                "--pidfile",
                str(pid_file),
                "--logfile",
                str(folder / "sentinel.log"),
            ],
            check=True,
            capture_output=True,
        )

    def status(self) -> HaStatus:
        nodes = {port: self.node(port).status().running for port in self.ports}
        sentinels = {
            port: pid_alive(read_pid(self.sentinel_dir(port) / "sentinel.pid")) and port_open(port)
            for port in self.settings.redis_ha_sentinel_ports
        }
        return HaStatus(self.current_primary(), nodes, sentinels, self.settings.redis_master_name)

    def stop(self, timeout: float = 10.0) -> bool:
        stopped = False
        for port in self.settings.redis_ha_sentinel_ports:
            stopped = stop_pid_file(self.sentinel_dir(port) / "sentinel.pid", timeout) or stopped
        for port in self.ports:
            stopped = self.stop_node(port) or stopped
        return stopped


def sentinel_binary() -> str:
    for name in SENTINEL_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise LocalServiceError(
        "redis-sentinel is not installed: run `make deps` (apt-get install redis-sentinel) "
        "or set REDIS_SENTINELS to existing sentinels."
    )
