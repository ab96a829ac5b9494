"""The watch use cases (docs/rules/watches.md): the shape every domain follows (jobs/README.md).

- `commands`: what a person asks of a watch (create, stop, resume, delete, rebind, step
  evidence, checkpoints, run now, library entries) and the reads of watches.
- `rounds`: heartbeat rounds (the cron tick, a requested round, running one) and the partner
  session's execution reports.
- `effects`: the jobs a use case enqueues after its transaction committed, under stable ids.
"""
