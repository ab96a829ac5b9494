"""Start the local Neo4j and Redis this project manages (only when no URL is configured), and
the local embedding model when EMBEDDINGS=local."""

from __future__ import annotations

from engine.settings import Settings


def ensure_services(settings: Settings) -> list[str]:
    """Start what is not running yet; one line per service saying where it is."""
    lines = []
    if settings.manages_neo4j:
        from local.neo4j_server import LocalNeo4j

        lines.append(LocalNeo4j(settings).start().describe())
    else:
        lines.append(f"Neo4j: using {settings.neo4j_uri}")
    if settings.manages_redis_ha:
        from local.redis_ha import LocalRedisHA

        lines.append(LocalRedisHA(settings).start().describe())
    elif settings.manages_redis:
        from local.redis_server import LocalRedis

        lines.append(LocalRedis(settings).start().describe())
    else:
        lines.append(f"Redis: using {settings.redacted_redis_url}")
    if settings.embeddings == "local":
        from local.embeddings_server import LocalEmbeddings

        lines.append(LocalEmbeddings(settings).start().describe())
    return lines
