"""A replicated Redis of a test's own: a primary, replicas and three sentinels on the ports
the test names (never the shared Redis), started by the project's own `LocalRedisHA`.

`sentinel_settings` is what an operator configures (REDIS_SENTINELS, REDIS_MASTER_NAME and
the password), not REDIS_HA: the clients under test know nothing of who started the set.
"""

from __future__ import annotations

import os
import shutil
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
from pydantic import SecretStr

from engine.settings import Settings
from local.process import read_pid
from local.redis_ha import LocalRedisHA
from tests.support.polling import until


@contextmanager
def own_redis_ha(
    services: Settings,
    local_dir: Path,
    *,
    ports: list[int],
    sentinel_ports: list[int],
    queue_prefix: str,
) -> Iterator[tuple[Settings, LocalRedisHA]]:
    """The set running on `ports` (the first the primary) and `sentinel_ports`, and the
    settings that reach it through the sentinels with a queue of the test's own."""
    managed = services.model_copy(
        update={
            "local_dir": local_dir,
            "redis_url": None,
            "redis_password": None,
            "redis_ha": True,
            "redis_ha_primary_port": ports[0],
            "redis_ha_replica_ports": ports[1:],
            "redis_ha_sentinel_ports": sentinel_ports,
        }
    )
    ha = LocalRedisHA(managed)
    ha.stop()  # nothing left over from an interrupted run
    shutil.rmtree(ha.dir, ignore_errors=True)
    ha.start()
    mine = services.model_copy(
        update={
            "redis_url": None,
            "redis_sentinels": ",".join(f"127.0.0.1:{p}" for p in sentinel_ports),
            "redis_password": SecretStr(ha.password()),
            "queue_name": f"storygraph:{queue_prefix}:{uuid.uuid4().hex[:8]}",
        }
    )
    try:
        yield mine, ha
    finally:
        ha.stop()
        shutil.rmtree(ha.dir, ignore_errors=True)


def on_node(ha: LocalRedisHA, port: int, command: str, *args: Any) -> Any:
    """One command on one node of the set (not through the sentinels), its client closed."""
    client = redis.Redis(port=port, password=ha.password(), socket_timeout=5)
    try:
        return client.execute_command(command, *args)
    finally:
        client.close()


def kill_node(ha: LocalRedisHA, port: int, sig: int = signal.SIGKILL) -> None:
    pid = read_pid(ha.node(port).pid_file)
    assert pid is not None, f"no redis-server on {port}"
    os.kill(pid, sig)


def node_pid(ha: LocalRedisHA, port: int) -> int:
    pid = read_pid(ha.node(port).pid_file)
    assert pid is not None, f"no redis-server on {port}"
    return pid


def promoted(ha: LocalRedisHA, old_port: int, timeout: float = 60) -> int:
    """Wait until the sentinels name a primary other than `old_port`; its port."""
    found = until(
        ha.current_primary,
        lambda p: p is not None and p[1] != old_port,
        what=f"a primary other than {old_port}",
        timeout=timeout,
    )
    assert found is not None
    return found[1]


def env_for(settings: Settings) -> dict[str, str]:
    """The environment a spawned API or worker reaches the set with."""
    assert settings.redis_sentinels and settings.redis_password
    return {
        "REDIS_SENTINELS": settings.redis_sentinels,
        "REDIS_MASTER_NAME": settings.redis_master_name,
        "REDIS_PASSWORD": settings.redis_password.get_secret_value(),
    }
