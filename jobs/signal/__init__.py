"""Signals: recorded by the review's publish stage, read time-sliced; a decision's effect is
queued here and performed by the concern use cases (`jobs/concern/agenda.py`)."""
