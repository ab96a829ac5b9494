"""Concern engine (seed 002 持续事项引擎): the concern object, its state machine and policies."""
