"""Search use cases (issue 30)."""
