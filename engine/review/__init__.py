"""Supervision reviews (docs/rules/reviews.md): app switch, heartbeat plans and runs, the review run
lifecycle and its stages, source manifests and batches, model-output contracts, incremental
checkpoints, the one-review-at-a-time lease, and activity.

Pure decisions only: each entry point takes the current state, an event and `now`, and
returns the new state (plus effects for the shell to perform). Nothing here does I/O.
"""
