"""Neo4j persistence of heartbeat watches (seed 000 持续关注)."""
