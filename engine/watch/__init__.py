"""Heartbeat watches (seed 000 持续关注): the pure rules of a checker run.

Entry points for the jobs and graph layers (state + event + now -> new state + effects):
see the module docstrings of access, paging, steps, evidence, outcome, budget, handoff,
checkpoint, redaction and candidates.
"""
