"""Signals: what the graph learns that a person may have to settle."""
