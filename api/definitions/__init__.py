"""GraphQL types, one module per domain type, each with a `from_model()` constructor."""
