"""Signals in the story graph."""
