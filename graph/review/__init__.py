"""Neo4j repositories of the supervision reviews (docs/rules/reviews.md): app settings, plans,
heartbeat runs, supervision runs with their stage / batch / navigation records, checkpoints,
the one-review lease, and the story-graph sources a review reads."""
