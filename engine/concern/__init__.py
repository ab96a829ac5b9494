"""Concern engine (docs/rules/concerns.md): the concern object, its state machine and policies."""
