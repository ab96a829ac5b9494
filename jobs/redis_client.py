"""Every Redis client of the project is built here: the arq pool (enqueueing, the worker, the
liveness keys, the review pool, the past cache) and the graphChanged subscriber.

With REDIS_SENTINELS (or the project's own replicated set, REDIS_HA) each connection asks the
sentinels for the current primary when it opens, so after a failover the next connection
reaches the promoted replica; with plain REDIS_URL it connects there. A write to a replica
(a former primary that came back demoted) is a ReadOnlyError: the sentinel pool drops its
connections and the next attempt asks the sentinels again.

Acknowledged means replicated (docs/operations-redis.md): `QueuePool.enqueue_job` and
`QueuePool.replicated()` return only once `effective_wait_replicas` replicas hold every write
made before, or raise `NotReplicated` (a RedisError, so callers already answer UNAVAILABLE
or retry). The primaries the project runs also refuse writes with no replica attached
(`min-replicas-to-write 1`: NOREPLICAS), so a lone primary fails loudly before the WAIT.
"""

from __future__ import annotations

from typing import Any

from arq.connections import ArqRedis, RedisSettings
from arq.jobs import Job
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.exceptions import RedisError

from engine.settings import Settings
from jobs.serialization import SERIALIZERS

# a key whose only use is to give the WAIT's connection the latest replication offset
ACK_KEY = "storygraph:replication-ack"
CONNECT_TIMEOUT_S = 2.0


class NotReplicated(RedisError):
    """A write reached the primary but not enough replicas within the timeout."""


def redis_settings(settings: Settings) -> RedisSettings:
    """arq's own settings for the same Redis (the few tests and tools that call arq's
    `create_pool` directly)."""
    if settings.uses_sentinel:
        return RedisSettings(
            host=settings.sentinel_addresses,
            sentinel=True,
            sentinel_master=settings.redis_master_name,
            password=_secret(settings.redis_password),
            conn_timeout=int(CONNECT_TIMEOUT_S),
        )
    return RedisSettings.from_dsn(settings.effective_redis_url)


def connection_pool(settings: Settings, **kwargs: Any) -> ConnectionPool:
    """The connection pool of one client: through the sentinels or to REDIS_URL. Opens no
    connection (the first command does)."""
    if not settings.uses_sentinel:
        return ConnectionPool.from_url(settings.effective_redis_url, **kwargs)
    sentinel = Sentinel(
        settings.sentinel_addresses,
        sentinel_kwargs={
            "password": _secret(settings.redis_sentinel_password),
            "socket_timeout": CONNECT_TIMEOUT_S,
            "socket_connect_timeout": CONNECT_TIMEOUT_S,
        },
    )
    return _SentinelPool(
        settings.redis_master_name,
        sentinel,
        password=_secret(settings.redis_password),
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        **kwargs,
    )


class _SentinelPool(SentinelConnectionPool):
    """The sentinel pool, whose disconnect also closes the connections it holds to the
    sentinels themselves (redis-py leaves them open when the client is closed)."""

    async def disconnect(self, inuse_connections: bool = True) -> None:
        await super().disconnect(inuse_connections)
        for client in self.sentinel_manager.sentinels:
            await client.connection_pool.disconnect()


def open_redis(settings: Settings, *, client_name: str | None = None) -> Redis:
    """A plain client (the graphChanged subscriber); no I/O until its first command."""
    extra = {"client_name": client_name} if client_name else {}
    return Redis.from_pool(connection_pool(settings, **extra))  # closing it closes the pool


def queue_pool(settings: Settings, *, queue_name: str | None = None) -> QueuePool:
    """The arq pool, built without I/O (a Redis that is down is met at the first command)."""
    return QueuePool(
        connection_pool(settings),
        wait_replicas=settings.effective_wait_replicas,
        wait_timeout_ms=settings.redis_wait_timeout_ms,
        default_queue_name=queue_name or settings.queue_name,
        **SERIALIZERS,
    )


async def open_pool(settings: Settings, *, queue_name: str | None = None) -> QueuePool:
    """The arq pool after a PING: a Redis that cannot be reached raises here."""
    pool = queue_pool(settings, queue_name=queue_name)
    try:
        await pool.ping()
    except BaseException:
        await pool.aclose()
        raise
    return pool


class QueuePool(ArqRedis):
    """arq's pool whose enqueue returns only once the job is replicated (see the module)."""

    def __init__(self, *args: Any, wait_replicas: int = 0, wait_timeout_ms: int = 2000, **kw: Any):
        super().__init__(*args, **kw)
        self.auto_close_connection_pool = True  # the pool is this client's own
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms

    async def enqueue_job(self, function: str, *args: Any, **kwargs: Any) -> Job | None:
        job = await super().enqueue_job(function, *args, **kwargs)
        # a known job id (None) may be one whose enqueue never got its acknowledgement
        await self.replicated()
        return job

    async def replicated(self) -> None:
        """Return once `wait_replicas` replicas hold every write this process made so far.

        WAIT counts the writes of its own connection; a pool spreads writes over several, so
        one small write on the WAIT's connection first carries the primary's latest offset
        (the replication stream is ordered: a replica past it holds everything before)."""
        if not self.wait_replicas:
            return
        async with self.pipeline(transaction=False) as pipe:
            pipe.incr(ACK_KEY)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
            _, acked = await pipe.execute()
        if int(acked) < self.wait_replicas:
            raise NotReplicated(
                f"the write reached {acked} of {self.wait_replicas} Redis replicas within "
                f"{self.wait_timeout_ms} ms; not acknowledged"
            )


async def acknowledged(redis: Redis) -> None:
    """Wait for the replicas after a write through `redis` (a `QueuePool`; other clients
    are not held to it)."""
    if isinstance(redis, QueuePool):
        await redis.replicated()


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None
