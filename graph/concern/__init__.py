"""Concerns in Neo4j (docs/rules/concerns.md): repository, scans, outbox, agenda and person
slices."""
