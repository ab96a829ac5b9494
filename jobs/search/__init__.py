"""Search use cases."""
