"""Neo4j persistence of heartbeat watches (docs/rules/watches.md)."""
