"""Signals in the story graph (issue 28)."""
