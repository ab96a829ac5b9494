"""Real services for integration tests: a migrated Neo4j driver and a unique scope per test.

The services are the ones `make test` started (or NEO4J_URI / REDIS_URL point at); the
session fixture `services` starts the project's own local ones when they are not running.
"""
