"""The review (supervision) use cases (seed 004 监督者): the shape every domain follows
(jobs/README.md).

- `commands`: what a person asks (start, continue, pause, cancel a review; save, delete, run
  a plan now; the heartbeat app switch), each `(deps, principal, ...)` checking role and scope
  first (`access`).
- `reads`: app settings, plans, runs (keyset-paged), one run, activity, a run's progress.
- `lifecycle`: the checked-already steps both people and the heartbeat use (lease, store,
  queue); `execution`: a run's staged execution; `heartbeat`: plans' tick, report and the
  automatic supervision after it; `recovery`: a starting worker's clean-up.
- `services`: the review repositories and timings, built from `Deps`; `model`, `pool`: the
  model requests of each stage and the FIFO pool they wait in.
"""
