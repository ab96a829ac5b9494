"""`storygraph neo4j|redis start|stop|status` and `storygraph down`: the local services this
project starts when no URL names one (local/)."""

from __future__ import annotations

import argparse

from engine.settings import Settings
from local.embeddings_server import LocalEmbeddings
from local.neo4j_server import LocalNeo4j
from local.redis_ha import LocalRedisHA
from local.redis_server import LocalRedis


def neo4j(settings: Settings, action: str) -> None:
    if not settings.manages_neo4j:
        print(f"NEO4J_URI is set ({settings.neo4j_uri}): this project starts no Neo4j.")
        return
    server = LocalNeo4j(settings)
    if action == "start":
        print(server.start().describe())
    elif action == "stop":
        print("Neo4j stopped." if server.stop() else "Neo4j was not running.")
    else:
        status = server.status()
        print(status.describe())
        if not status.running:
            raise SystemExit(3)


def redis(settings: Settings, action: str) -> None:
    if not settings.manages_redis:
        which = "REDIS_SENTINELS" if settings.redis_sentinels else "REDIS_URL"
        print(f"{which} is set ({settings.redacted_redis_url}): this project starts no Redis.")
        return
    server: LocalRedis | LocalRedisHA = (
        LocalRedisHA(settings) if settings.manages_redis_ha else LocalRedis(settings)
    )
    if action == "start":
        print(server.start().describe())
    elif action == "stop":
        print("Redis stopped." if server.stop() else "Redis was not running.")
    else:
        status = server.status()
        print(status.describe())
        if not status.running:
            raise SystemExit(3)


def down(settings: Settings) -> None:
    if LocalEmbeddings(settings).stop():
        print("Embedding model stopped.")
    redis(settings, "stop")
    if settings.manages_redis and not settings.redis_ha:  # a set `up --redis-ha` started
        ha = settings.model_copy(update={"redis_ha": True})
        if (ha.local_dir / f"redis-ha-{ha.redis_ha_primary_port}").exists():
            redis(ha, "stop")
    neo4j(settings, "stop")


def neo4j_command(args: argparse.Namespace, settings: Settings) -> None:
    neo4j(settings, args.action)


def redis_command(args: argparse.Namespace, settings: Settings) -> None:
    redis(settings, args.action)


def down_command(args: argparse.Namespace, settings: Settings) -> None:
    down(settings)
