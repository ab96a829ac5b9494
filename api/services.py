"""Start the local Neo4j and Redis this project manages (only when no URL is configured)."""

from __future__ import annotations

from engine.settings import Settings


def ensure_services(settings: Settings) -> None:
    if settings.manages_neo4j:
        from graph.localserver import LocalNeo4j

        LocalNeo4j(settings).start()
    if settings.manages_redis:
        from jobs.localredis import LocalRedis

        LocalRedis(settings).start()
