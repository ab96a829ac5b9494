"""Concerns in Neo4j (seed 002): repository, scans, outbox, agenda and person slices."""
